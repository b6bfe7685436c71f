package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// CreateIndexes is the createIndexes command.
type CreateIndexes struct {
	cmdspec.Cmd               `cmd:"createIndexes" roles:"primary,router"`
	Collection                cmdspec.CollName `cmd:",command"`
	Indexes                   []bson.D         `cmd:"indexes,required"`
	CommitQuorum              any              `cmd:"commitQuorum"`
	IgnoreUnknownIndexOptions any              `cmd:"ignoreUnknownIndexOptions"`
	IsTimeseriesNamespace     any              `cmd:"isTimeseriesNamespace"`
}

func createIndexes(c *Ctx, p *CreateIndexes) (bson.D, error) {
	coll := string(p.Collection)
	if len(p.Indexes) == 0 {
		return nil, mongoerr.New(mongoerr.BadValue, "Must specify at least one index to create")
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
