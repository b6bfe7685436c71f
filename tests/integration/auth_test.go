package integration

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/tests/harness"
)

// authUnauthenticatedOK are the commands an unauthenticated connection may
// run under --auth (MongoDB's handshake and authentication set).
var authUnauthenticatedOK = map[string]bool{
	"hello": true, "isMaster": true, "ping": true, "buildInfo": true, "whatsmyuri": true, "connectionStatus": true,
	"saslStart": true, "saslContinue": true, "logout": true, "authenticate": true,
}

func cmdCode(err error) int32 {
	var ce mongo.CommandError
	if errors.As(err, &ce) {
		return ce.Code
	}
	return -1
}

// loginClient connects as user with the given mechanism.
func loginClient(t *testing.T, s *harness.Server, user, pass, mech string) (*mongo.Client, error) {
	t.Helper()
	uri := fmt.Sprintf("mongodb://%s:%s@127.0.0.1:%d/?directConnection=true&authSource=admin&authMechanism=%s&serverSelectionTimeoutMS=3000", user, pass, s.Port(), mech)
	c, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	return c, c.Ping(tctx(t, opTimeout), nil)
}

func runCmd(t *testing.T, c *mongo.Client, db string, cmd bson.D) (bson.M, error) {
	t.Helper()
	var out bson.M
	err := c.Database(db).RunCommand(tctx(t, opTimeout), cmd).Decode(&out)
	return out, err
}

// TestAuthLoginAndUsers: --auth, the localhost exception creates the first
// user, SCRAM-SHA-256 and SCRAM-SHA-1 logins, wrong passwords, user
// management and its errors.
func TestAuthLoginAndUsers(t *testing.T) {
	s, anon := startServer(t, harness.WithArgs("--auth"))
	ctx := tctx(t, opTimeout)
	coll := anon.Database("app").Collection("c")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); cmdCode(err) != 13 {
		t.Fatalf("unauthenticated insert: %v", err)
	}
	if err := coll.FindOne(ctx, bson.D{}).Err(); cmdCode(err) != 13 {
		t.Fatalf("unauthenticated find: %v", err)
	}
	if _, err := anon.ListDatabaseNames(ctx, bson.D{}); cmdCode(err) != 13 {
		t.Fatalf("unauthenticated listDatabases: %v", err)
	}
	if _, err := runCmd(t, anon, "app", bson.D{{Key: "createUser", Value: "x"}, {Key: "pwd", Value: "y"}, {Key: "roles", Value: bson.A{}}}); cmdCode(err) != 13 {
		t.Fatalf("localhost exception outside admin: %v", err)
	}
	create := bson.D{{Key: "createUser", Value: "root"}, {Key: "pwd", Value: "s3cret"}, {Key: "roles", Value: bson.A{"root"}}}
	if _, err := runCmd(t, anon, "admin", create); err != nil {
		t.Fatalf("first user via the localhost exception: %v", err)
	}
	if _, err := runCmd(t, anon, "admin", bson.D{{Key: "createUser", Value: "second"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{}}}); cmdCode(err) != 13 {
		t.Fatalf("localhost exception after the first user: %v", err)
	}
	for _, mech := range []string{"SCRAM-SHA-256", "SCRAM-SHA-1"} {
		c, err := loginClient(t, s, "root", "s3cret", mech)
		if err != nil {
			t.Fatalf("%s login: %v", mech, err)
		}
		if _, err := c.Database("app").Collection("c").InsertOne(ctx, bson.D{{Key: "m", Value: mech}}); err != nil {
			t.Fatalf("%s insert: %v", mech, err)
		}
		st, err := runCmd(t, c, "admin", bson.D{{Key: "connectionStatus", Value: 1}})
		if err != nil || !strings.Contains(fmt.Sprint(st["authInfo"]), "root") {
			t.Fatalf("%s connectionStatus: %v %v", mech, st, err)
		}
		if _, err := loginClient(t, s, "root", "wrong", mech); err == nil || !strings.Contains(err.Error(), "Authentication failed.") {
			t.Fatalf("%s wrong password: %v", mech, err)
		}
	}
	if _, err := loginClient(t, s, "nobody", "x", "SCRAM-SHA-256"); err == nil || !strings.Contains(err.Error(), "Authentication failed.") {
		t.Fatalf("unknown user: %v", err)
	}
	root, _ := loginClient(t, s, "root", "s3cret", "SCRAM-SHA-256")
	// Every login so far started inside hello (speculativeAuthenticate):
	// no saslStart command was needed, only saslContinue.
	ss, err := runCmd(t, root, "admin", bson.D{{Key: "serverStatus", Value: 1}})
	cmdsSeen := fmt.Sprint(ss["metrics"])
	if err != nil || strings.Contains(cmdsSeen, "saslStart") || !strings.Contains(cmdsSeen, "saslContinue") {
		t.Fatalf("speculative authentication not used: %v %s", err, cmdsSeen)
	}
	if _, err := runCmd(t, root, "admin", create); cmdCode(err) != 51003 {
		t.Fatalf("duplicate createUser: %v", err)
	}
	info, err := runCmd(t, root, "admin", bson.D{{Key: "usersInfo", Value: "root"}})
	if err != nil || strings.Contains(fmt.Sprint(info), "storedKey") || !strings.Contains(fmt.Sprint(info), "SCRAM-SHA-256") {
		t.Fatalf("usersInfo: %v %v", info, err)
	}
	info, err = runCmd(t, root, "admin", bson.D{{Key: "usersInfo", Value: 1}, {Key: "showCredentials", Value: true}})
	if err != nil || !strings.Contains(fmt.Sprint(info), "storedKey") || strings.Contains(fmt.Sprint(info), "s3cret") {
		t.Fatalf("usersInfo showCredentials: %v %v", info, err)
	}
	if _, err := runCmd(t, root, "admin", bson.D{{Key: "updateUser", Value: "root"}, {Key: "pwd", Value: "n3w"}, {Key: "writeConcern", Value: bson.D{{Key: "w", Value: 1}}}}); err != nil {
		t.Fatalf("updateUser: %v", err)
	}
	if _, err := loginClient(t, s, "root", "s3cret", "SCRAM-SHA-256"); err == nil {
		t.Fatal("old password still works after updateUser")
	}
	if _, err := loginClient(t, s, "root", "n3w", "SCRAM-SHA-1"); err != nil {
		t.Fatalf("new password: %v", err)
	}
	info, err = runCmd(t, root, "admin", bson.D{{Key: "usersInfo", Value: 1}, {Key: "filter", Value: bson.D{{Key: "user", Value: "nobody"}}}})
	if err != nil || fmt.Sprint(info["users"]) != "[]" {
		t.Fatalf("usersInfo filter: %v %v", info, err)
	}
	digested := bson.D{{Key: "createUser", Value: "r"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{}},
		{Key: "digestPassword", Value: false}}
	if _, err := runCmd(t, root, "admin", digested); cmdCode(err) != 2 {
		t.Fatalf("digestPassword: false must be refused, not ignored: %v", err)
	}
	if _, err := runCmd(t, root, "admin", bson.D{{Key: "dropUser", Value: "ghost"}}); cmdCode(err) != 11 {
		t.Fatalf("dropUser of a missing user: %v", err)
	}
	if _, err := runCmd(t, root, "admin", bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: "PLAIN"}, {Key: "payload", Value: bson.Binary{Data: []byte("x")}}}); cmdCode(err) != 334 {
		t.Fatalf("unknown mechanism: %v", err)
	}
	if _, err := runCmd(t, root, "admin", bson.D{{Key: "logout", Value: 1}}); err != nil {
		t.Fatalf("logout: %v", err)
	}
}

// TestAuthEveryCommandNeedsAuth: under --auth, every registered command
// except the handshake/authentication set answers 13 on an
// unauthenticated connection.
func TestAuthEveryCommandNeedsAuth(t *testing.T) {
	s, anon := startServer(t, harness.WithArgs("--auth"))
	if _, err := runCmd(t, anon, "admin", bson.D{{Key: "createUser", Value: "u"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{"root"}}}); err != nil {
		t.Fatal(err)
	}
	root, err := loginClient(t, s, "u", "p", "SCRAM-SHA-256")
	if err != nil {
		t.Fatal(err)
	}
	lc, err := runCmd(t, root, "admin", bson.D{{Key: "listCommands", Value: 1}})
	if err != nil {
		t.Fatal(err)
	}
	cmds, _ := lc["commands"].(bson.D)
	if len(cmds) < 50 {
		t.Fatalf("listCommands returned %d commands", len(cmds))
	}
	for _, e := range cmds {
		name := e.Key
		_, err := runCmd(t, anon, "admin", bson.D{{Key: name, Value: 1}})
		if authUnauthenticatedOK[name] {
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

// TestAuthRefusedWithReplSet: --auth needs member authentication on a
// replica set, which relaydb does not have yet: a clear startup error.
func TestAuthRefusedWithReplSet(t *testing.T) {
	bin, err := harness.Binary()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(tctx(t, opTimeout), bin, "serve", "--auth", "--replSet", "rs0", "--inMemory").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "keyFile") {
		t.Fatalf("want a startup error naming keyFile, got %v: %s", err, out)
	}
}

// TestAuthUsersSurviveRestart: users are ordinary durable writes; the
// localhost exception stays closed after a restart; a bad writeConcern
// refuses createUser before it writes.
func TestAuthUsersSurviveRestart(t *testing.T) {
	s, anon := startServer(t, harness.WithArgs("--auth"))
	bad := bson.D{{Key: "createUser", Value: "u"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{}}, {Key: "writeConcern", Value: bson.D{{Key: "w", Value: 2}}}}
	if _, err := runCmd(t, anon, "admin", bad); err == nil {
		t.Fatal("createUser with w:2 on a standalone accepted")
	}
	create := bson.D{{Key: "createUser", Value: "u"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "readWrite"}, {Key: "db", Value: "app"}}}},
		{Key: "writeConcern", Value: bson.D{{Key: "w", Value: 1}, {Key: "j", Value: true}}}}
	if _, err := runCmd(t, anon, "admin", create); err != nil {
		t.Fatalf("createUser (the w:2 attempt must not have created it): %v", err)
	}
	s.Restart(t)
	anon2 := s.Client(t)
	if _, err := runCmd(t, anon2, "admin", bson.D{{Key: "createUser", Value: "x"}, {Key: "pwd", Value: "y"}, {Key: "roles", Value: bson.A{}}}); cmdCode(err) != 13 {
		t.Fatalf("localhost exception reopened after restart: %v", err)
	}
	c, err := loginClient(t, s, "u", "p", "SCRAM-SHA-256")
	if err != nil {
		t.Fatalf("login after restart: %v", err)
	}
	st, err := runCmd(t, c, "admin", bson.D{{Key: "connectionStatus", Value: 1}})
	if err != nil || !strings.Contains(fmt.Sprint(st), "readWrite") {
		t.Fatalf("connectionStatus roles: %v %v", st, err)
	}
}

// TestAuthFailedLoginsSlowed: after 5 failed logins from one address each
// further failure is answered later (250ms, 500ms, ...); a success resets.
func TestAuthFailedLoginsSlowed(t *testing.T) {
	s, anon := startServer(t, harness.WithArgs("--auth"))
	if _, err := runCmd(t, anon, "admin", bson.D{{Key: "createUser", Value: "u"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{}}}); err != nil {
		t.Fatal(err)
	}
	var took []time.Duration
	for range 7 {
		start := time.Now()
		if _, err := loginClient(t, s, "u", "wrong", "SCRAM-SHA-256"); err == nil {
			t.Fatal("wrong password accepted")
		}
		took = append(took, time.Since(start))
	}
	if took[0] > 200*time.Millisecond || took[6] < 450*time.Millisecond {
		t.Fatalf("failure latencies %v: want the first fast and the 7th about 500ms", took)
	}
	if _, err := loginClient(t, s, "u", "p", "SCRAM-SHA-256"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := loginClient(t, s, "u", "wrong", "SCRAM-SHA-256"); err == nil || time.Since(start) > 200*time.Millisecond {
		t.Fatalf("after a success the count resets: %v after %v", err, time.Since(start))
	}
}

// TestAuthDefaultMechanism: without authMechanism the driver asks hello's
// saslSupportedMechs and picks SCRAM-SHA-256, or SCRAM-SHA-1 for a user
// that has only SHA-1 credentials.
func TestAuthDefaultMechanism(t *testing.T) {
	s, anon := startServer(t, harness.WithArgs("--auth"))
	if _, err := runCmd(t, anon, "admin", bson.D{{Key: "createUser", Value: "both"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{"root"}}}); err != nil {
		t.Fatal(err)
	}
	connect := func(user string) (*mongo.Client, error) {
		uri := fmt.Sprintf("mongodb://%s:p@127.0.0.1:%d/?directConnection=true&serverSelectionTimeoutMS=3000", user, s.Port())
		c, err := mongo.Connect(options.Client().ApplyURI(uri))
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
		return c, c.Ping(tctx(t, opTimeout), nil)
	}
	both, err := connect("both")
	if err != nil {
		t.Fatalf("default mechanism: %v", err)
	}
	if _, err := runCmd(t, both, "admin", bson.D{{Key: "createUser", Value: "old"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{}}, {Key: "mechanisms", Value: bson.A{"SCRAM-SHA-1"}}}); err != nil {
		t.Fatal(err)
	}
	hello, err := runCmd(t, both, "admin", bson.D{{Key: "hello", Value: 1}, {Key: "saslSupportedMechs", Value: "admin.old"}})
	if err != nil || fmt.Sprint(hello["saslSupportedMechs"]) != "[SCRAM-SHA-1]" {
		t.Fatalf("saslSupportedMechs: %v %v", hello["saslSupportedMechs"], err)
	}
	if _, err := connect("old"); err != nil {
		t.Fatalf("SHA-1-only user with the default mechanism: %v", err)
	}
	if _, err := loginClient(t, s, "old", "p", "SCRAM-SHA-256"); err == nil {
		t.Fatal("SCRAM-SHA-256 login of a SHA-1-only user succeeded")
	}
}
