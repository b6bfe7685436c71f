package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func createIndexes(c *Ctx, p *request.CreateIndexes) (bson.D, error) {
	coll := string(p.Collection)
	if len(p.Indexes) == 0 {
		return nil, mongoerr.New(mongoerr.BadValue, "Must specify at least one index to create")
	}
	if err := c.refuseView(coll); err != nil {
		return nil, err
	}
	cat := c.D.eng.Catalog()
	created := cat.Collection(c.DB, coll) == nil
	col, err := c.D.eng.CollectionForWrite(c.DB, coll)
	if err != nil {
		return nil, err
	}
	before, after, err := cat.CreateIndexes(col, p.Indexes)
	if err != nil {
		return nil, err
	}
	reply := bson.D{
		{Key: "numIndexesBefore", Value: int32(before)},
		{Key: "numIndexesAfter", Value: int32(after)},
		{Key: "createdCollectionAutomatically", Value: created},
	}
	if before == after {
		reply = append(reply, bson.E{Key: "note", Value: "all indexes already exist"})
	}
	return reply, nil
}
