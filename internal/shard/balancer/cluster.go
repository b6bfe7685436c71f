package balancer

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// maxGetMores bounds the batches of one metadata read.
const maxGetMores = 10000

// ConfigCluster is the Cluster of the config server primary: the config
// database read with readConcern majority and split commits written with
// w:"majority" through run (on a config server member, the local
// dispatcher).
type ConfigCluster struct {
	run configsvr.Runner
	cat *configsvr.Catalog
}

// NewConfigCluster returns the Cluster over run.
func NewConfigCluster(run configsvr.Runner) *ConfigCluster {
	return &ConfigCluster{run: run, cat: configsvr.NewCatalog(run)}
}

// Config reads config.settings' balancer and chunksize documents.
func (c *ConfigCluster) Config(ctx context.Context) (Config, error) {
	docs, err := c.find(ctx, configsvr.SettingsColl, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: bson.A{"balancer", "chunksize"}}}}})
	if err != nil {
		return Config{}, err
	}
	var bal, size bson.D
	for _, d := range docs {
		switch id, _ := bsonx.Get(d, "_id"); id {
		case "balancer":
			bal = d
		case "chunksize":
			size = d
		}
	}
	return ParseConfig(bal, size)
}

// Shards reads config.shards (draining: removeShard's flag).
func (c *ConfigCluster) Shards(ctx context.Context) ([]Shard, error) {
	docs, err := c.find(ctx, configsvr.ShardsColl, bson.D{})
	if err != nil {
		return nil, err
	}
	out := make([]Shard, 0, len(docs))
	for _, d := range docs {
		s, err := configsvr.ParseShard(d)
		if err != nil {
			return nil, err
		}
		draining, _ := bsonx.Get(d, "draining")
		out = append(out, Shard{ID: s.ID, Host: s.Host, Draining: draining == true})
	}
	return out, nil
}

// Collections reads every sharded collection's routing table. A table
// read half-way through a concurrent change (ConflictingOperationInProgress)
// fails the round; the next round reads again.
func (c *ConfigCluster) Collections(ctx context.Context) ([]CollectionInfo, error) {
	docs, err := c.find(ctx, configsvr.CollectionsColl, bson.D{})
	if err != nil {
		return nil, err
	}
	var out []CollectionInfo
	for _, d := range docs {
		ns, _ := bsonx.Get(d, "_id")
		name, _ := ns.(string)
		cm, found, err := c.cat.RoutingTable(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("routing table of %s: %w", name, err)
		}
		if !found { // dropped meanwhile
			continue
		}
		noBalance, _ := bsonx.Get(d, "noBalance")
		maxBytes, _ := bsonx.Get(d, "maxChunkSizeBytes")
		size, _ := bsonx.AsInt64(maxBytes)
		out = append(out, CollectionInfo{CM: cm, NoBalance: noBalance == true, ChunkSize: max(size, 0)})
	}
	return out, nil
}

// CommitSplit cuts chunk at key at as the split command does
// (routing.ChunkManager.Split's pieces and versions,
// configsvr.Catalog.CommitChunkSplit's writes).
func (c *ConfigCluster) CommitSplit(ctx context.Context, cm *routing.ChunkManager, chunk routing.Chunk, at bson.D) (*routing.ChunkManager, error) {
	next, err := cm.Split(chunk.Min, []bson.D{at})
	if err != nil {
		return nil, err
	}
	var pieces []routing.Chunk
	for _, ch := range next.Chunks() {
		if chunk.Contains(ch.Min) {
			pieces = append(pieces, ch)
		}
	}
	if err := c.cat.CommitChunkSplit(ctx, cm.Collection(), chunk, pieces); err != nil {
		return nil, err
	}
	return next, nil
}

// find reads config.<coll> with readConcern majority, every batch.
func (c *ConfigCluster) find(ctx context.Context, coll string, filter bson.D) ([]bson.D, error) {
	reply, err := c.run.Run(ctx, configsvr.DB, bson.D{
		{Key: "find", Value: coll}, {Key: "filter", Value: filter},
		{Key: "sort", Value: bson.D{{Key: "_id", Value: 1}}},
		{Key: "readConcern", Value: bson.D{{Key: "level", Value: "majority"}}},
	})
	var out []bson.D
	for range maxGetMores {
		if err != nil {
			return nil, fmt.Errorf("reading config.%s: %w", coll, err)
		}
		batch, id := cursorDocs(reply)
		out = append(out, batch...)
		if id == 0 {
			return out, nil
		}
		reply, err = c.run.Run(ctx, configsvr.DB, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: coll}})
	}
	return nil, fmt.Errorf("reading config.%s: more than %d batches", coll, maxGetMores)
}

// cursorDocs reads {cursor: {id, firstBatch|nextBatch}}.
func cursorDocs(reply bson.D) ([]bson.D, int64) {
	cur, _ := bsonx.Get(reply, "cursor")
	cd, _ := cur.(bson.D)
	idv, _ := bsonx.Get(cd, "id")
	id, _ := bsonx.AsInt64(idv)
	batch, ok := bsonx.Get(cd, "firstBatch")
	if !ok {
		batch, _ = bsonx.Get(cd, "nextBatch")
	}
	arr, _ := batch.(bson.A)
	out := make([]bson.D, 0, len(arr))
	for _, v := range arr {
		if d, ok := v.(bson.D); ok {
			out = append(out, d)
		}
	}
	return out, id
}
