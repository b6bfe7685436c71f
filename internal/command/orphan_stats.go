package command

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/shard/shardsvr"
)

// numOrphanDocs is how many orphans of ns this shard holds as its range
// deletion tasks count them (the sum of numOrphanDocs in
// config.rangeDeletions, MongoDB's storageStats.numOrphanDocs): set when a
// task is scheduled, lowered by each deleted batch. 0 on a node that is
// not a shard. Orphans written straight to a shard, outside any task, are
// not counted (as in MongoDB).
func (c *Ctx) numOrphanDocs(ctx context.Context, ns string) (int64, error) {
	if c.D.shardVersioner == nil {
		return 0, nil
	}
	reply, err := localRunner{d: c.D}.Run(ctx, shardsvr.RangeTasksDB, bson.D{
		{Key: "find", Value: shardsvr.RangeTasksColl},
		{Key: "filter", Value: bson.D{{Key: "nss", Value: ns}}},
		{Key: "projection", Value: bson.D{{Key: "numOrphanDocs", Value: int32(1)}}},
		{Key: "batchSize", Value: int64(1000)}, {Key: "singleBatch", Value: true},
	})
	if err != nil {
		return 0, err
	}
	var orphans int64
	for _, d := range replyBatch(reply) {
		n, _ := bsonx.Get(d, "numOrphanDocs")
		v, _ := bsonx.AsInt64(n)
		orphans += v
	}
	return orphans, nil
}
