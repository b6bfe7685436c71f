package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Drop is the drop command.
type Drop struct {
	cmdspec.Cmd `cmd:"drop" roles:"primary,router"`
	Collection  cmdspec.CollName `cmd:",command"`
	Rest        bson.D           `cmd:",inline"` // not checked
}

// DropDatabase is the dropDatabase command.
type DropDatabase struct {
	cmdspec.Cmd `cmd:"dropDatabase" roles:"primary,router"`
	Value       any    `cmd:",command"`
	Rest        bson.D `cmd:",inline"` // not checked
}

func drop(c *Ctx, p *Drop) (bson.D, error) {
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
	return bson.D{{Key: "nIndexesWas", Value: int32(n)}, {Key: "ns", Value: c.ns(coll)}}, nil
}

func dropDatabase(c *Ctx, _ *DropDatabase) (bson.D, error) {
	if err := c.D.eng.Catalog().DropDatabase(c.DB); err != nil {
		return nil, err
	}
	return bson.D{{Key: "dropped", Value: c.DB}}, nil
}
