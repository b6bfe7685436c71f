package sharding

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/xdg-go/scram"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/tests/harness"
)

// TestRouterAuthAttacks: the router's own SASL (users on the config
// servers) under the attacks the data node's tests make
// (tests/integration/auth_attack_test.go): a replayed client-final (18),
// oversized input (17), garbage mechanisms (334) and payloads (14, 18),
// conversations misused (17); it keeps serving logins afterwards.
func TestRouterAuthAttacks(t *testing.T) {
	keyFile, key := writeKeyFile(t)
	cfg := startKeyedSet(t, "acfg", "--configsvr", keyFile, key)
	r := harness.StartRouter(t, "acfg/"+cfg, "--keyFile", keyFile)
	ctx := ctxT(t)
	root := bson.A{bson.D{{Key: "role", Value: "root"}, {Key: "db", Value: "admin"}}}
	must(t, routerClient(t, r, "", "", "").Database("admin").RunCommand(ctx, bson.D{{Key: "createUser", Value: "boss"},
		{Key: "pwd", Value: "boss-pw"}, {Key: "roles", Value: root}}).Err(), "createUser through the localhost exception")

	// Replay: the final message of a completed login, in a new conversation.
	sc, err := scram.SHA256.NewClient("boss", "boss-pw", "")
	if err != nil {
		t.Fatal(err)
	}
	conv := sc.NewConversation()
	first, _ := conv.Step("")
	a := oneRouterConn(t, r)
	out, err := runDoc(ctx, a, "admin", harness.SaslStart("SCRAM-SHA-256", bson.Binary{Data: []byte(first)}))
	must(t, err, "saslStart")
	final, err := conv.Step(string(docPayload(t, out)))
	must(t, err, "client final")
	_, err = runDoc(ctx, a, "admin", harness.SaslContinue(int32(1), bson.Binary{Data: []byte(final)}))
	must(t, err, "saslContinue")
	b := oneRouterConn(t, r)
	_, err = runDoc(ctx, b, "admin", harness.SaslStart("SCRAM-SHA-256", bson.Binary{Data: []byte(first)}))
	must(t, err, "replayed saslStart")
	_, err = runDoc(ctx, b, "admin", harness.SaslContinue(int32(1), bson.Binary{Data: []byte(final)}))
	wantErr(t, err, 18, "Authentication failed", "replayed client-final")

	c := oneRouterConn(t, r)
	rng := rand.New(rand.NewPCG(13, 7))
	random := func(n int) bson.Binary {
		buf := make([]byte, n)
		for i := range buf {
			buf[i] = byte(rng.UintN(256))
		}
		return bson.Binary{Data: buf}
	}
	huge := strings.Repeat("a", 1<<20)
	valid := bson.Binary{Data: []byte("n,,n=boss,r=fyko+d2lbbFgONRv9qkxdawL")}
	for _, st := range []struct {
		name string
		db   string
		cmd  bson.D
		code int
	}{
		{"1 MB user name", "admin", harness.SaslStart("SCRAM-SHA-256", bson.Binary{Data: []byte("n,,n=" + huge + ",r=abc")}), 17},
		{"1 MB mechanism", "admin", harness.SaslStart(huge, valid), 334},
		{"mechanism garbage", "admin", harness.SaslStart("\x00\xff", valid), 334},
		{"mechanism not a string", "admin", bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: int32(1)}, {Key: "payload", Value: valid}}, 14},
		{"payload int", "admin", harness.SaslStart("SCRAM-SHA-256", int32(5)), 14},
		{"continue without a conversation", "admin", harness.SaslContinue(int32(1), valid), 17},
		{"random payload", "admin", harness.SaslStart("SCRAM-SHA-256", random(64)), 18},
		{"valid start", "admin", harness.SaslStart("SCRAM-SHA-256", valid), 0},
		{"continue with a wrong id", "admin", harness.SaslContinue(int32(7), random(16)), 17},
		{"continue on another database", "app", harness.SaslContinue(int32(1), random(16)), 17},
		{"continue with random bytes", "admin", harness.SaslContinue(int32(1), random(200)), 18},
		{"continue after the failure", "admin", harness.SaslContinue(int32(1), random(16)), 17},
		{"authenticate garbage mechanism", "$external", bson.D{{Key: "authenticate", Value: 1}, {Key: "mechanism", Value: "\x01junk"}}, 334},
	} {
		_, err := runDoc(ctx, c, st.db, st.cmd)
		if got := cmdCode(err); (st.code == 0 && err != nil) || (st.code != 0 && got != st.code) {
			t.Errorf("%s: got %.300v (code %d), want code %d", st.name, err, got, st.code)
		}
	}
	if err := c.Database("app").RunCommand(ctx, bson.D{{Key: "find", Value: "c"}}).Err(); cmdCode(err) != 13 {
		t.Fatalf("find after the attacks: %v", err)
	}
	must(t, routerClient(t, r, "boss", "boss-pw", "admin").Ping(ctx, nil), "login after the attacks")
}

// oneRouterConn is an unauthenticated client over one connection.
func oneRouterConn(t *testing.T, r *harness.Router) *mongo.Client {
	t.Helper()
	cl, err := mongo.Connect(options.Client().ApplyURI(r.URI()).SetMaxPoolSize(1).SetServerSelectionTimeout(5 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Disconnect(context.Background()) })
	return cl
}

// docPayload is a SASL reply's payload bytes.
func docPayload(t *testing.T, reply bson.D) []byte {
	t.Helper()
	for _, e := range reply {
		if e.Key == "payload" {
			if b, ok := e.Value.(bson.Binary); ok {
				return b.Data
			}
		}
	}
	t.Fatalf("no payload in %v", reply)
	return nil
}
