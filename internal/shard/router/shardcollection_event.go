package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/shard/key"
)

// notifyShardCollection has the database's primary shard note the
// sharding of ns in its oplog (_shardsvrNotifyShardingEvent), where
// change streams with showExpandedEvents find the shardCollection event,
// as MongoDB's primary shard writes it. The metadata is committed by
// then, so a failure is logged, not returned: the collection is sharded
// and only the event is missing.
func notifyShardCollection(c *call, primary *replSet, ns string, p key.Pattern, unique bool, numInitial int64) {
	cmd := bson.D{{Key: "_shardsvrNotifyShardingEvent", Value: ns}, {Key: "eventType", Value: "shardCollection"},
		{Key: "details", Value: bson.D{{Key: "shardKey", Value: p.Doc()}, {Key: "unique", Value: unique},
			{Key: "numInitialChunks", Value: numInitial}, {Key: "presplitHashedZones", Value: false}}},
		{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}}}}
	if _, err := primary.Run(c.ctx, "admin", cmd, false); err != nil {
		c.r.log.Warn("primary shard did not note shardCollection for change streams", "ns", ns, "err", err)
	}
}
