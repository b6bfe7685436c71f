package sharding

import (
	"context"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/tests/harness"
)

// routerUnauthenticatedOK are the commands a router runs before login.
var routerUnauthenticatedOK = map[string]bool{
	"hello": true, "isMaster": true, "ismaster": true, "ping": true, "buildInfo": true, "buildinfo": true,
	"whatsmyuri": true, "connectionStatus": true, "saslStart": true, "saslContinue": true, "logout": true, "isdbgrid": true, "authenticate": true,
}

// TestRouterAuth: a cluster with a key file everywhere. Through the
// router: the first user via the localhost exception, every command
// refused before login (13, nothing run), the admin shards a collection
// and reads and writes it, a read user cannot write, a user created
// through one router logs in through a second, and a dropped user's
// connection can do nothing more.
func TestRouterAuth(t *testing.T) {
	keyFile, key := writeKeyFile(t)
	cfgHost := startKeyedSet(t, "cfg", "--configsvr", keyFile, key)
	shHost := startKeyedSet(t, "sh0", "--shardsvr", keyFile, key)
	r1 := harness.StartRouter(t, "cfg/"+cfgHost, "--keyFile", keyFile)
	ctx := ctxT(t)

	anon := routerClient(t, r1, "", "", "")
	admin := anon.Database("admin")
	if err := admin.RunCommand(ctx, bson.D{{Key: "listShards", Value: 1}}).Err(); cmdCode(err) != 13 {
		t.Fatalf("listShards before any user: %v", err)
	}
	root := bson.A{bson.D{{Key: "role", Value: "root"}, {Key: "db", Value: "admin"}}}
	must(t, admin.RunCommand(ctx, bson.D{{Key: "createUser", Value: "boss"}, {Key: "pwd", Value: "boss-pw"}, {Key: "roles", Value: root}}).Err(),
		"createUser through the localhost exception")
	if err := admin.RunCommand(ctx, bson.D{{Key: "createUser", Value: "second"}, {Key: "pwd", Value: "x"}, {Key: "roles", Value: root}}).Err(); cmdCode(err) != 13 {
		t.Fatalf("a second createUser without login: %v", err)
	}

	boss := routerClient(t, r1, "boss", "boss-pw", "admin")
	checkEveryCommandNeedsLogin(t, ctx, boss, anon)

	must(t, boss.Database("admin").RunCommand(ctx, bson.D{{Key: "addShard", Value: "sh0/" + shHost}}).Err(), "addShard")
	must(t, boss.Database("admin").RunCommand(ctx, bson.D{{Key: "enableSharding", Value: "app"}}).Err(), "enableSharding")
	must(t, boss.Database("admin").RunCommand(ctx, bson.D{{Key: "shardCollection", Value: "app.c"},
		{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}}).Err(), "shardCollection")
	coll := boss.Database("app").Collection("c")
	for i := 0; i < 10; i++ {
		_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}})
		must(t, err, "insert %d", i)
	}
	if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 10 {
		t.Fatalf("count = %d, %v", n, err)
	}
	if _, err := anon.Database("app").Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: 99}}); cmdCode(err) != 13 {
		t.Fatalf("unauthenticated insert: %v", err)
	}

	read := bson.A{bson.D{{Key: "role", Value: "read"}, {Key: "db", Value: "app"}}}
	must(t, boss.Database("app").RunCommand(ctx, bson.D{{Key: "createUser", Value: "reader"}, {Key: "pwd", Value: "reader-pw"},
		{Key: "roles", Value: read}}).Err(), "createUser reader")
	reader := routerClient(t, r1, "reader", "reader-pw", "app")
	checkReader(t, ctx, reader, true)
	for _, cmd := range []bson.D{{{Key: "addShard", Value: "sh9/127.0.0.1:1"}}, {{Key: "shardCollection", Value: "app.d"}, {Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}},
		{{Key: "balancerStop", Value: 1}}, {{Key: "createUser", Value: "x"}, {Key: "pwd", Value: "x"}, {Key: "roles", Value: bson.A{}}}} {
		err := reader.Database("admin").RunCommand(ctx, cmd).Err()
		if cmdCode(err) != 13 || !strings.Contains(err.Error(), "not authorized") {
			t.Errorf("%s by the read user: %v", cmd[0].Key, err)
		}
	}
	var st struct {
		AuthInfo struct {
			Users []bson.M `bson:"authenticatedUsers"`
			Roles []bson.M `bson:"authenticatedUserRoles"`
		} `bson:"authInfo"`
	}
	must(t, boss.Database("admin").RunCommand(ctx, bson.D{{Key: "connectionStatus", Value: 1}}).Decode(&st), "connectionStatus")
	if len(st.AuthInfo.Users) != 1 || st.AuthInfo.Users[0]["user"] != "boss" || len(st.AuthInfo.Roles) != 1 || st.AuthInfo.Roles[0]["role"] != "root" {
		t.Errorf("connectionStatus authInfo = %+v", st.AuthInfo)
	}

	r2 := harness.StartRouter(t, "cfg/"+cfgHost, "--keyFile", keyFile)
	reader2 := routerClient(t, r2, "reader", "reader-pw", "app")
	checkReader(t, ctx, reader2, true)
	if err := routerClient(t, r2, "reader", "wrong", "app").Ping(ctx, nil); err == nil || !strings.Contains(err.Error(), "Authentication failed") {
		t.Fatalf("wrong password through the second router: %v", err)
	}

	checkUserDefinedRole(t, ctx, boss, r1, r2)

	// authenticationRestrictions are checked against the client's address
	// at the router.
	for user, source := range map[string]string{"fenced": "127.0.0.9", "local": "127.0.0.1/32"} {
		must(t, boss.Database("app").RunCommand(ctx, bson.D{{Key: "createUser", Value: user}, {Key: "pwd", Value: "pw"},
			{Key: "roles", Value: read}, {Key: "authenticationRestrictions", Value: bson.A{bson.D{{Key: "clientSource", Value: bson.A{source}}}}}}).Err(),
			"createUser %s", user)
	}
	if err := routerClient(t, r1, "fenced", "pw", "app").Ping(ctx, nil); err == nil || !strings.Contains(err.Error(), "Authentication failed") {
		t.Errorf("login from outside the user's clientSource: %v", err)
	}
	if err := routerClient(t, r2, "local", "pw", "app").Ping(ctx, nil); err != nil {
		t.Errorf("login from inside the user's clientSource: %v", err)
	}

	// Dropped through r1: r1's cache is emptied at once, so the reader's
	// logged-in connection there can no longer read.
	must(t, boss.Database("app").RunCommand(ctx, bson.D{{Key: "dropUser", Value: "reader"}}).Err(), "dropUser")
	checkReader(t, ctx, reader, false)
}

// checkReader: a read user finds through the router (when allowed) and can
// never write.
func checkReader(t *testing.T, ctx context.Context, cl *mongo.Client, canRead bool) {
	t.Helper()
	coll := cl.Database("app").Collection("c")
	n, err := coll.CountDocuments(ctx, bson.D{})
	if canRead && (err != nil || n != 10) {
		t.Fatalf("reader count = %d, %v", n, err)
	}
	if !canRead && cmdCode(err) != 13 {
		t.Fatalf("dropped reader count: %v", err)
	}
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 100}}); cmdCode(err) != 13 {
		t.Fatalf("reader insert: %v", err)
	}
}

// checkEveryCommandNeedsLogin runs every command of the router's
// listCommands unauthenticated: each answers 13 "requires
// authentication", but the handshake ones.
func checkEveryCommandNeedsLogin(t *testing.T, ctx context.Context, boss, anon *mongo.Client) {
	t.Helper()
	var lc struct {
		Commands bson.D `bson:"commands"`
	}
	must(t, boss.Database("admin").RunCommand(ctx, bson.D{{Key: "listCommands", Value: 1}}).Decode(&lc), "listCommands")
	names := map[string]bool{}
	for _, e := range lc.Commands {
		names[e.Key] = true
	}
	for _, want := range []string{"addShard", "shardCollection", "moveChunk", "balancerStart", "find", "insert", "createUser", "saslStart"} {
		if !names[want] {
			t.Errorf("listCommands lacks %s", want)
		}
	}
	if len(names) < 60 {
		t.Fatalf("listCommands returned %d commands", len(names))
	}
	for name := range names {
		err := anon.Database("admin").RunCommand(ctx, bson.D{{Key: name, Value: "app.c"}}, options.RunCmd()).Err()
		if routerUnauthenticatedOK[name] {
			if cmdCode(err) == 13 {
				t.Errorf("%s refused unauthenticated: %v", name, err)
			}
			continue
		}
		if cmdCode(err) != 13 || !strings.Contains(err.Error(), "requires authentication") {
			t.Errorf("%s unauthenticated: %v", name, err)
		}
	}
}

// checkUserDefinedRole: a role created through the router (on the config
// servers) grants its privileges to a user on both routers; dropping it
// through r1 takes them away there at once.
func checkUserDefinedRole(t *testing.T, ctx context.Context, boss *mongo.Client, r1, r2 *harness.Router) {
	t.Helper()
	app := boss.Database("app")
	must(t, app.RunCommand(ctx, bson.D{{Key: "createRole", Value: "appWriter"}, {Key: "privileges", Value: bson.A{
		bson.D{{Key: "resource", Value: bson.D{{Key: "db", Value: "app"}, {Key: "collection", Value: "c"}}}, {Key: "actions", Value: bson.A{"insert", "find"}}}}},
		{Key: "roles", Value: bson.A{}}}).Err(), "createRole")
	must(t, app.RunCommand(ctx, bson.D{{Key: "createUser", Value: "writer"}, {Key: "pwd", Value: "writer-pw"},
		{Key: "roles", Value: bson.A{"appWriter"}}}).Err(), "createUser writer")
	var info struct {
		Roles []bson.M `bson:"roles"`
	}
	must(t, app.RunCommand(ctx, bson.D{{Key: "rolesInfo", Value: "appWriter"}}).Decode(&info), "rolesInfo")
	if len(info.Roles) != 1 || info.Roles[0]["role"] != "appWriter" {
		t.Fatalf("rolesInfo through the router = %v", info.Roles)
	}
	w1 := routerClient(t, r1, "writer", "writer-pw", "app").Database("app").Collection("c")
	w2 := routerClient(t, r2, "writer", "writer-pw", "app").Database("app").Collection("c")
	for i, w := range []*mongo.Collection{w1, w2} {
		_, err := w.InsertOne(ctx, bson.D{{Key: "_id", Value: 200 + i}})
		must(t, err, "insert by the role's user through router %d", i+1)
		if _, err := w.DeleteOne(ctx, bson.D{{Key: "_id", Value: 200 + i}}); cmdCode(err) != 13 {
			t.Fatalf("delete by the role's user through router %d: %v", i+1, err)
		}
	}
	must(t, app.RunCommand(ctx, bson.D{{Key: "dropRole", Value: "appWriter"}}).Err(), "dropRole")
	if _, err := w1.InsertOne(ctx, bson.D{{Key: "_id", Value: 300}}); cmdCode(err) != 13 {
		t.Fatalf("insert after dropRole through the same router: %v", err)
	}
	for i := 200; i < 202; i++ {
		_, err := boss.Database("app").Collection("c").DeleteOne(ctx, bson.D{{Key: "_id", Value: i}})
		must(t, err, "cleanup delete")
	}
}
