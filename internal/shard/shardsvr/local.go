package shardsvr

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
)

// LocalIdentity returns an Options.Identity that reads the shardIdentity
// document from this member's admin.system.version through eng.
func LocalIdentity(eng *exec.Engine) func(context.Context) (configsvr.ShardIdentity, bool, error) {
	return func(context.Context) (configsvr.ShardIdentity, bool, error) {
		it, _, err := eng.Find(configsvr.IdentityDB, configsvr.IdentityColl, exec.FindParams{
			Filter: bson.D{{Key: "_id", Value: configsvr.IdentityID}}, Limit: 1,
		})
		if err != nil {
			return configsvr.ShardIdentity{}, false, err
		}
		defer it.Close()
		row, ok := it.Next()
		if !ok {
			return configsvr.ShardIdentity{}, false, it.Err()
		}
		doc := row.Doc
		if doc == nil {
			if doc, err = bsonx.Decode(row.Raw); err != nil {
				return configsvr.ShardIdentity{}, false, err
			}
		}
		id, err := configsvr.ParseShardIdentity(doc)
		return id, err == nil, err
	}
}
