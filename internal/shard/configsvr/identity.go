package configsvr

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Where a shard keeps its identity: admin.system.version, _id "shardIdentity".
const (
	IdentityDB = "admin"
	// IdentityColl is MongoDB's NamespaceString::kServerConfigurationNamespace.
	IdentityColl = "system.version"
	IdentityID   = "shardIdentity"
)

// ShardIdentity is the document addShard writes into a new shard (MongoDB's
// ShardIdentityType): {_id: "shardIdentity", shardName, clusterId,
// configsvrConnectionString}. It tells the shard its name and where the
// config servers are.
type ShardIdentity struct {
	ShardName                 string
	ClusterID                 bson.ObjectID // config.version's clusterId
	ConfigsvrConnectionString string        // "cfgSet/h:p,h:p"
}

// Doc is id as stored on the shard.
func (id ShardIdentity) Doc() bson.D {
	return append(bson.D{{Key: "_id", Value: IdentityID}}, id.fields()...)
}

func (id ShardIdentity) fields() bson.D {
	return bson.D{
		{Key: "shardName", Value: id.ShardName},
		{Key: "clusterId", Value: id.ClusterID},
		{Key: "configsvrConnectionString", Value: id.ConfigsvrConnectionString},
	}
}

// ParseShardIdentity reads the shardIdentity document.
func ParseShardIdentity(d bson.D) (ShardIdentity, error) {
	var id ShardIdentity
	var ok bool
	if s, _ := field[string](d, "_id"); s != IdentityID {
		return id, malformed("shardIdentity", d, "_id")
	}
	if id.ShardName, ok = field[string](d, "shardName"); !ok || id.ShardName == "" {
		return id, malformed("shardIdentity", d, "shardName")
	}
	id.ClusterID, _ = field[bson.ObjectID](d, "clusterId")
	if id.ConfigsvrConnectionString, ok = field[string](d, "configsvrConnectionString"); !ok || len(SplitHosts(id.ConfigsvrConnectionString)) == 0 {
		return id, malformed("shardIdentity", d, "configsvrConnectionString")
	}
	return id, nil
}

// InsertShardIdentity writes id into the shard whose primary shard runs
// commands on, as MongoDB's addShard does (add_shard_util's
// createShardIdentityUpsertForAddShard): an upsert of admin.system.version
// {_id: "shardIdentity"} with w:"majority". The router's addShard calls it
// before inserting the config.shards entry.
func InsertShardIdentity(ctx context.Context, shard Runner, id ShardIdentity) error {
	reply, err := shard.Run(ctx, IdentityDB, bson.D{
		{Key: "update", Value: IdentityColl},
		{Key: "updates", Value: bson.A{bson.D{
			{Key: "q", Value: bson.D{{Key: "_id", Value: IdentityID}}},
			{Key: "u", Value: id.fields()},
			{Key: "upsert", Value: true},
		}}},
		{Key: "writeConcern", Value: majority(ctx)},
	})
	if err != nil {
		return fmt.Errorf("configsvr: writing the shardIdentity of %s: %w", id.ShardName, err)
	}
	return WriteError(reply)
}
