package configsvr

import (
	"context"
	"regexp"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/shard/routing"
)

// DropShardedCollection removes coll's metadata: its config.collections
// entry first (readers then see the collection unsharded), then its
// chunks, each with w:"majority". The router's drop calls it after the
// shards dropped the collection (the _configsvr* commands will move it to
// the config server primary).
func (c *Catalog) DropShardedCollection(ctx context.Context, coll routing.Collection) error {
	reply, err := c.run.Run(ctx, DB, bson.D{
		{Key: "delete", Value: CollectionsColl},
		{Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: coll.NS}, {Key: "uuid", Value: coll.UUID}}}, {Key: "limit", Value: int32(1)}}}},
		{Key: "writeConcern", Value: majority(ctx)},
	})
	if err == nil {
		err = WriteError(reply)
	}
	if err != nil {
		return err
	}
	return c.deleteChunks(ctx, coll.UUID)
}

// ShardedCollections returns the config.collections entries of database
// db (majority read), by namespace.
func (c *Catalog) ShardedCollections(ctx context.Context, db string) ([]routing.Collection, error) {
	docs, err := c.find(ctx, CollectionsColl, bson.D{{Key: "_id", Value: bson.Regex{Pattern: "^" + regexp.QuoteMeta(db) + `\.`}}})
	if err != nil {
		return nil, err
	}
	out := make([]routing.Collection, 0, len(docs))
	for _, d := range docs {
		coll, err := ParseCollection(d)
		if err != nil {
			return nil, err
		}
		out = append(out, coll)
	}
	return out, nil
}
