package configsvr

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// The metadata writes of movePrimary and removeShard (MongoDB's
// _configsvrCommitMovePrimary and _configsvrRemoveShard), made by a
// router with the client's write concern made majority, as its other
// metadata commands.

// CommitMovePrimary makes to the primary shard of db, bumping the
// database version's lastMod (uuid and timestamp kept, as MongoDB's
// DatabaseVersion::makeUpdated), if db's entry still has expected as
// version and from as primary (compare-and-swap): otherwise another
// movePrimary or a drop got there first (ConflictingOperationInProgress).
func (c *Catalog) CommitMovePrimary(ctx context.Context, db, from, to string, expected DatabaseVersion) (Database, error) {
	next := Database{Name: db, Primary: to, Version: expected}
	next.Version.LastMod++
	filter := bson.D{{Key: "_id", Value: db}, {Key: "primary", Value: from}, {Key: "version", Value: expected.Doc()}}
	n, err := c.updateMatched(ctx, DBsColl, filter, next.Doc())
	if err != nil {
		return Database{}, fmt.Errorf("committing the move of %s's primary to %s: %w", db, to, err)
	}
	if n == 0 {
		got, found, err := c.Database(ctx, db)
		if err == nil && found && got.Primary == to && got.Version.LastMod == next.Version.LastMod && bytes.Equal(got.Version.UUID.Data, next.Version.UUID.Data) {
			return got, nil // a resent commit applied the first time
		}
		return Database{}, mongoerr.New(mongoerr.ConflictingOperationInProgress,
			"the metadata of database %s changed while its primary was being moved", db)
	}
	return next, nil
}

// ShardDraining reports whether config.shards marks id draining;
// found is false when there is no such shard.
func (c *Catalog) ShardDraining(ctx context.Context, id string) (found, draining bool, err error) {
	docs, err := c.find(ctx, ShardsColl, bson.D{{Key: "_id", Value: id}})
	if err != nil || len(docs) == 0 {
		return false, false, err
	}
	v, _ := bsonx.Get(docs[0], "draining")
	b, _ := v.(bool)
	return true, b, nil
}

// DrainingShards returns the ids of the shards marked draining.
func (c *Catalog) DrainingShards(ctx context.Context) ([]string, error) {
	docs, err := c.find(ctx, ShardsColl, bson.D{{Key: "draining", Value: true}})
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(docs))
	for _, d := range docs {
		id, _ := bsonx.Get(d, "_id")
		if s, ok := id.(string); ok {
			out = append(out, s)
		}
	}
	return out, nil
}

// withoutDraining drops the shards removeShard is draining: a new
// database is never placed on one (as MongoDB's primary choice).
func (c *Catalog) withoutDraining(ctx context.Context, shards []Shard) ([]Shard, error) {
	draining, err := c.DrainingShards(ctx)
	if err != nil || len(draining) == 0 {
		return shards, err
	}
	out := make([]Shard, 0, len(shards))
	for _, s := range shards {
		if !slices.Contains(draining, s.ID) {
			out = append(out, s)
		}
	}
	return out, nil
}

// SetShardDraining sets draining: true on id's config.shards document
// (removeShard's first step; the balancer then moves its chunks away).
func (c *Catalog) SetShardDraining(ctx context.Context, id string) error {
	_, err := c.updateMatched(ctx, ShardsColl, bson.D{{Key: "_id", Value: id}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "draining", Value: true}}}})
	return err
}

// RemoveShard deletes id's config.shards document (removeShard's last
// step, once it owns no chunk and is no database's primary).
func (c *Catalog) RemoveShard(ctx context.Context, id string) error {
	reply, err := c.run.Run(ctx, DB, bson.D{
		{Key: "delete", Value: ShardsColl},
		{Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: id}}}, {Key: "limit", Value: int32(1)}}}},
		{Key: "writeConcern", Value: majority(ctx)},
	})
	if err != nil {
		return err
	}
	return WriteError(reply)
}

// CountChunks counts config.chunks documents matching filter (majority).
func (c *Catalog) CountChunks(ctx context.Context, filter bson.D) (int64, error) {
	reply, err := c.run.Run(ctx, DB, bson.D{
		{Key: "count", Value: ChunksColl}, {Key: "query", Value: filter},
		{Key: "readConcern", Value: bson.D{{Key: "level", Value: "majority"}}},
	})
	if err != nil {
		return 0, err
	}
	n, _ := bsonx.Get(reply, "n")
	count, _ := bsonx.AsInt64(n)
	return count, nil
}

// updateMatched runs one update statement on config.<coll> (majority) and
// returns how many documents matched.
func (c *Catalog) updateMatched(ctx context.Context, coll string, filter, u bson.D) (int64, error) {
	reply, err := c.run.Run(ctx, DB, bson.D{
		{Key: "update", Value: coll},
		{Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: filter}, {Key: "u", Value: u}}}},
		{Key: "writeConcern", Value: majority(ctx)},
	})
	if err != nil {
		return 0, err
	}
	if err := WriteError(reply); err != nil {
		return 0, err
	}
	n, _ := bsonx.Get(reply, "n")
	matched, _ := bsonx.AsInt64(n)
	return matched, nil
}
