package sharding

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestAddShardWritesIdentity: addShard through the router writes the
// shard's shardIdentity (admin.system.version) with its name, the
// cluster's id from config.version and the config servers' connection
// string, as MongoDB's addShard does; adding the shard again keeps it.
func TestAddShardWritesIdentity(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for range 2 {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards["sh0"])}}).Err(), "addShard sh0")
	}
	var version struct {
		ClusterID bson.ObjectID `bson:"clusterId"`
	}
	must(t, cl.Database("config").Collection("version").FindOne(ctxT(t), bson.D{{Key: "_id", Value: 1}}).Decode(&version), "config.version")
	var id struct {
		ShardName string        `bson:"shardName"`
		ClusterID bson.ObjectID `bson:"clusterId"`
		ConfigDB  string        `bson:"configsvrConnectionString"`
	}
	shard := tp.shardClient(t, "sh0")
	must(t, shard.Database("admin").Collection("system.version").FindOne(ctxT(t),
		bson.D{{Key: "_id", Value: "shardIdentity"}}).Decode(&id), "shardIdentity on sh0")
	if id.ShardName != "sh0" || id.ClusterID.IsZero() || id.ClusterID != version.ClusterID || !strings.HasPrefix(id.ConfigDB, "cfg/") {
		t.Fatalf("shardIdentity = %+v, want shardName sh0, clusterId %v, configsvrConnectionString cfg/...", id, version.ClusterID)
	}
}
