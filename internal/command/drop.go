package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func drop(c *Ctx, p *request.Drop) (bson.D, error) {
	coll := string(p.Collection)
	cat := c.D.eng.Catalog()
	col := cat.Collection(c.DB, coll)
	if col == nil {
		return bson.D{}, nil // MongoDB 7.0: dropping a missing collection succeeds
	}
	n := len(col.Indexes())
	if err := cat.DropCollection(c.DB, coll); err != nil && !mongoerr.Is(err, mongoerr.NamespaceNotFound) {
		return nil, err
	}
	if lookupOpt(col.Options, "timeseries") != nil && isView(col) { // and its buckets
		if err := cat.DropCollection(c.DB, bucketsPrefix+coll); err != nil && !mongoerr.Is(err, mongoerr.NamespaceNotFound) {
			return nil, err
		}
	}
	return bson.D{{Key: "nIndexesWas", Value: int32(n)}, {Key: "ns", Value: c.ns(coll)}}, nil
}

func dropDatabase(c *Ctx, _ *request.DropDatabase) (bson.D, error) {
	if err := c.D.eng.Catalog().DropDatabase(c.DB); err != nil {
		return nil, err
	}
	return bson.D{{Key: "dropped", Value: c.DB}}, nil
}
