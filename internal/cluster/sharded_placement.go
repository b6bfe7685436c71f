package cluster

import (
	"context"
	"fmt"
	"sort"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Placement is what `relaydb cluster status` shows of a sharded cluster's
// metadata: where each database lives and how many chunks of each sharded
// collection each shard owns. It is read from the config server primary
// (majority read concern), not through a router, so it is shown even when
// every router is down.
type Placement struct {
	Databases   []DatabasePlacement
	Collections []CollectionPlacement
}

// DatabasePlacement is one config.databases entry.
type DatabasePlacement struct {
	Name, Primary string
}

// CollectionPlacement is one sharded collection: its key and chunk counts
// by shard (shards that own none are absent).
type CollectionPlacement struct {
	NS     string
	Key    bson.D
	Chunks map[string]int
}

// Placement reads config.databases, config.collections and config.chunks.
// maxCollections bounds how many collections are listed (sorted by name).
func (sc *Sharded) Placement(ctx context.Context, maxCollections int) (Placement, error) {
	p, err := sc.Config.WaitPrimary(ctx)
	if err != nil {
		return Placement{}, fmt.Errorf("cluster: config server primary: %w", err)
	}
	cl, err := sc.Config.Client(p)
	if err != nil {
		return Placement{}, err
	}
	cfg := cl.Database("config")
	var out Placement
	if out.Databases, err = readDatabases(ctx, cfg); err != nil {
		return Placement{}, err
	}
	if out.Collections, err = readCollections(ctx, cfg, maxCollections); err != nil {
		return Placement{}, err
	}
	return out, nil
}

func readDatabases(ctx context.Context, cfg *mongo.Database) ([]DatabasePlacement, error) {
	cur, err := cfg.Collection("databases").Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(1000))
	if err != nil {
		return nil, fmt.Errorf("cluster: read config.databases: %w", err)
	}
	var docs []struct {
		ID      string `bson:"_id"`
		Primary string `bson:"primary"`
	}
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("cluster: read config.databases: %w", err)
	}
	out := make([]DatabasePlacement, len(docs))
	for i, d := range docs {
		out[i] = DatabasePlacement{Name: d.ID, Primary: d.Primary}
	}
	return out, nil
}

func readCollections(ctx context.Context, cfg *mongo.Database, limit int) ([]CollectionPlacement, error) {
	opts := options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(int64(limit))
	cur, err := cfg.Collection("collections").Find(ctx, bson.D{}, opts)
	if err != nil {
		return nil, fmt.Errorf("cluster: read config.collections: %w", err)
	}
	var colls []struct {
		ID   string      `bson:"_id"`
		Key  bson.D      `bson:"key"`
		UUID bson.Binary `bson:"uuid"`
	}
	if err := cur.All(ctx, &colls); err != nil {
		return nil, fmt.Errorf("cluster: read config.collections: %w", err)
	}
	out := make([]CollectionPlacement, 0, len(colls))
	for _, c := range colls {
		counts, err := chunkCounts(ctx, cfg, c.UUID)
		if err != nil {
			return nil, fmt.Errorf("cluster: chunks of %s: %w", c.ID, err)
		}
		out = append(out, CollectionPlacement{NS: c.ID, Key: c.Key, Chunks: counts})
	}
	return out, nil
}

// chunkCounts groups a collection's chunks by shard on the config server.
func chunkCounts(ctx context.Context, cfg *mongo.Database, uuid bson.Binary) (map[string]int, error) {
	pipeline := bson.A{
		bson.D{{Key: "$match", Value: bson.D{{Key: "uuid", Value: uuid}}}},
		bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$shard"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
	}
	cur, err := cfg.Collection("chunks").Aggregate(ctx, pipeline)
	if err != nil {
		return nil, err
	}
	var rows []struct {
		Shard string `bson:"_id"`
		N     int    `bson:"n"`
	}
	if err := cur.All(ctx, &rows); err != nil {
		return nil, err
	}
	out := make(map[string]int, len(rows))
	for _, r := range rows {
		out[r.Shard] = r.N
	}
	return out, nil
}

// ShardNames returns the shards of c's chunk counts in name order.
func (c CollectionPlacement) ShardNames() []string {
	names := make([]string, 0, len(c.Chunks))
	for s := range c.Chunks {
		names = append(names, s)
	}
	sort.Strings(names)
	return names
}
