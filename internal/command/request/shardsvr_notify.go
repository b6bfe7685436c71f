package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// ShardsvrNotifyShardingEvent is the command a router sends to a
// database's primary shard after a DDL change of its sharding metadata,
// so that the shard notes it in its oplog for change streams (MongoDB's
// primary shard writes the same no-op entry itself): eventType
// "shardCollection" with details {shardKey, unique, numInitialChunks,
// presplitHashedZones} for the namespace.
type ShardsvrNotifyShardingEvent struct {
	cmdspec.Cmd `cmd:"_shardsvrNotifyShardingEvent" roles:"primary"`
	NS          string `cmd:",command"`
	EventType   string `cmd:"eventType,required"`
	Details     bson.D `cmd:"details"`
}
