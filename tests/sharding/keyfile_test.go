package sharding

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/tests/harness"
)

// TestKeyFileMigration: with a key file everywhere, a chunk moves between
// two shards through the router: the recipient clones from the donor and
// both commit on the config server over member connections logged in as
// __system; the donor deletes the range (_waitForDelete), and the data is
// where config.chunks says, read directly on each shard as __system.
func TestKeyFileMigration(t *testing.T) {
	keyFile, key := writeKeyFile(t)
	cfgHost := startKeyedSet(t, "kcfg", "--configsvr", keyFile, key)
	sh0 := startKeyedSet(t, "ksh0", "--shardsvr", keyFile, key)
	sh1 := startKeyedSet(t, "ksh1", "--shardsvr", keyFile, key)
	r := harness.StartRouter(t, "kcfg/"+cfgHost, "--keyFile", keyFile)
	ctx := ctxT(t)
	anon := routerClient(t, r, "", "", "")
	root := bson.A{bson.D{{Key: "role", Value: "root"}, {Key: "db", Value: "admin"}}}
	must(t, anon.Database("admin").RunCommand(ctx, bson.D{{Key: "createUser", Value: "boss"}, {Key: "pwd", Value: "boss-pw"}, {Key: "roles", Value: root}}).Err(),
		"createUser through the localhost exception")
	boss := routerClient(t, r, "boss", "boss-pw", "admin")
	admin := boss.Database("admin")
	for _, cmd := range []bson.D{
		{{Key: "addShard", Value: "ksh0/" + sh0}},
		{{Key: "addShard", Value: "ksh1/" + sh1}},
		{{Key: "enableSharding", Value: "app"}, {Key: "primaryShard", Value: "ksh0"}},
		{{Key: "shardCollection", Value: "app.m"}, {Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}},
		{{Key: "split", Value: "app.m"}, {Key: "middle", Value: bson.D{{Key: "_id", Value: 10}}}},
	} {
		must(t, admin.RunCommand(ctx, cmd).Err(), "%s", cmd[0].Key)
	}
	coll := boss.Database("app").Collection("m")
	docs := make([]any, 20)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}}
	}
	_, err := coll.InsertMany(ctx, docs)
	must(t, err, "insert")
	must(t, admin.RunCommand(ctx, bson.D{{Key: "moveChunk", Value: "app.m"}, {Key: "find", Value: bson.D{{Key: "_id", Value: 15}}},
		{Key: "to", Value: "ksh1"}, {Key: "_waitForDelete", Value: true}}).Err(), "moveChunk under a key file")
	if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 20 {
		t.Fatalf("count through the router = %d, %v", n, err)
	}
	for _, c := range []struct {
		host string
		want int64
	}{{sh0, 10}, {sh1, 10}} {
		n, err := systemClient(t, c.host, key).Database("app").Collection("m").CountDocuments(ctx, bson.D{})
		if err != nil || n != c.want {
			t.Errorf("shard %s holds %d documents (%v), want %d", c.host, n, err, c.want)
		}
	}
}
