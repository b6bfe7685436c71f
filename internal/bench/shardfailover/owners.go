package shardfailover

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"

	"github.com/relaydb/relaydb/internal/shard/configsvr"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// maxChunks bounds the chunks read for one collection.
const maxChunks = 100_000

// loadRouting reads ns's routing table from the config servers (through
// cfg, a client of the config server primary) with readConcern majority.
func loadRouting(ctx context.Context, cfg *mongo.Client, ns string) (*routing.ChunkManager, error) {
	db := cfg.Database("config", options.Database().SetReadConcern(readconcern.Majority()))
	var cd bson.D
	if err := db.Collection("collections").FindOne(ctx, bson.D{{Key: "_id", Value: ns}}).Decode(&cd); err != nil {
		return nil, fmt.Errorf("shardfailover: config.collections %s: %w", ns, err)
	}
	coll, err := configsvr.ParseCollection(cd)
	if err != nil {
		return nil, err
	}
	cur, err := db.Collection("chunks").Find(ctx, bson.D{{Key: "uuid", Value: coll.UUID}},
		options.Find().SetLimit(maxChunks))
	if err != nil {
		return nil, fmt.Errorf("shardfailover: config.chunks of %s: %w", ns, err)
	}
	defer cur.Close(ctx)
	var chunks []routing.Chunk
	for cur.Next(ctx) {
		var d bson.D
		if err := cur.Decode(&d); err != nil {
			return nil, fmt.Errorf("shardfailover: config.chunks of %s: %w", ns, err)
		}
		c, err := configsvr.ParseChunk(coll, d)
		if err != nil {
			return nil, err
		}
		chunks = append(chunks, c)
	}
	if err := cur.Err(); err != nil {
		return nil, fmt.Errorf("shardfailover: config.chunks of %s: %w", ns, err)
	}
	return routing.New(coll, chunks)
}

// ownerFunc maps a YCSB key to the index of its shard in shards (-1 when
// the table does not say, which a routing table covering the key space
// never does for a string _id). The table is read once, after
// shardCollection; prepare stops the balancer first, so no chunk moves
// during the run.
func ownerFunc(cm *routing.ChunkManager, shards []string) func(key string) int16 {
	idx := map[string]int16{}
	for i, s := range shards {
		idx[s] = int16(i)
	}
	return func(key string) int16 {
		s, err := cm.ShardFor(bson.D{{Key: "_id", Value: key}})
		if i, ok := idx[s]; ok && err == nil {
			return i
		}
		return -1
	}
}
