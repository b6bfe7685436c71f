package sharding

import (
	"context"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/relaydb/relaydb/tests/harness"
)

// securedCluster is a key-file cluster: a config server, two shards and a
// router, with root user "boss" created through the localhost exception;
// app.s is sharded on _id with chunks [MinKey,10) on sh0 and [10,MaxKey)
// on sh1 and holds _id 0..19; app.u is unsharded and holds _id 0..9.
type securedCluster struct {
	cfg, keyFile string
	r            *harness.Router
	boss         *mongo.Client
}

func startSecuredCluster(t *testing.T, routerArgs ...string) *securedCluster {
	t.Helper()
	keyFile, key := writeKeyFile(t)
	cfg := startKeyedSet(t, "hcfg", "--configsvr", keyFile, key)
	sh0 := startKeyedSet(t, "hsh0", "--shardsvr", keyFile, key)
	sh1 := startKeyedSet(t, "hsh1", "--shardsvr", keyFile, key)
	r := harness.StartRouter(t, "hcfg/"+cfg, append([]string{"--keyFile", keyFile}, routerArgs...)...)
	ctx := ctxT(t)
	root := bson.A{bson.D{{Key: "role", Value: "root"}, {Key: "db", Value: "admin"}}}
	must(t, routerClient(t, r, "", "", "").Database("admin").RunCommand(ctx, bson.D{{Key: "createUser", Value: "boss"},
		{Key: "pwd", Value: "boss-pw"}, {Key: "roles", Value: root}}).Err(), "createUser through the localhost exception")
	boss := routerClient(t, r, "boss", "boss-pw", "admin")
	for _, cmd := range []bson.D{
		{{Key: "addShard", Value: "hsh0/" + sh0}},
		{{Key: "addShard", Value: "hsh1/" + sh1}},
		{{Key: "enableSharding", Value: "app"}, {Key: "primaryShard", Value: "hsh0"}},
		{{Key: "shardCollection", Value: "app.s"}, {Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}},
		{{Key: "split", Value: "app.s"}, {Key: "middle", Value: bson.D{{Key: "_id", Value: 10}}}},
		{{Key: "moveChunk", Value: "app.s"}, {Key: "find", Value: bson.D{{Key: "_id", Value: 15}}}, {Key: "to", Value: "hsh1"}},
	} {
		must(t, boss.Database("admin").RunCommand(ctx, cmd).Err(), "%s", cmd[0].Key)
	}
	for coll, n := range map[string]int{"s": 20, "u": 10} {
		docs := make([]any, n)
		for i := range docs {
			docs[i] = bson.D{{Key: "_id", Value: i}}
		}
		_, err := boss.Database("app").Collection(coll).InsertMany(ctx, docs)
		must(t, err, "insert into app.%s", coll)
	}
	return &securedCluster{cfg: cfg, keyFile: keyFile, r: r, boss: boss}
}

// createUser creates user (password "pw") on app with roles.
func (sc *securedCluster) createUser(t *testing.T, user string, roles bson.A) {
	t.Helper()
	must(t, sc.boss.Database("app").RunCommand(ctxT(t), bson.D{{Key: "createUser", Value: user}, {Key: "pwd", Value: "pw"},
		{Key: "roles", Value: roles}}).Err(), "createUser %s", user)
}

// wantErr fails unless err is code with msg in its message.
func wantErr(t *testing.T, err error, code int, msg, what string) {
	t.Helper()
	if cmdCode(err) != code || !strings.Contains(err.Error(), msg) {
		t.Errorf("%s: %v, want %d %q", what, err, code, msg)
	}
}

// runDoc runs cmd on db and decodes the reply.
func runDoc(ctx context.Context, cl *mongo.Client, db string, cmd bson.D) (bson.D, error) {
	var out bson.D
	err := cl.Database(db).RunCommand(ctx, cmd).Decode(&out)
	return out, err
}

// cursorOf returns reply.cursor.id and the length of its batch (key).
func cursorOf(reply bson.D, key string) (int64, int) {
	var cur bson.D
	for _, e := range reply {
		if e.Key == "cursor" {
			cur, _ = e.Value.(bson.D)
		}
	}
	var id int64
	n := -1
	for _, e := range cur {
		switch e.Key {
		case "id":
			id, _ = e.Value.(int64)
		case key:
			a, _ := e.Value.(bson.A)
			n = len(a)
		}
	}
	return id, n
}
