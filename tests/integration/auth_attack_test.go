package integration

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xdg-go/scram"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/tests/harness"
)

// Attack-surface tests of authentication (issue #13 item 7), through the
// Go driver's RunCommand against the real binary: replayed messages,
// oversized and garbage input, conversations misused. Each answers a
// MongoDB-shaped error and the server keeps serving. The server slows
// repeated failed logins per address (5 a minute free), so each test
// makes few of them.

// attackServer starts --auth with root/p and returns it.
func attackServer(t *testing.T) *harness.Server {
	t.Helper()
	s, anon := startServer(t, harness.WithArgs("--auth"))
	runOK(t, anon, "admin", bson.D{{Key: "createUser", Value: "root"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{"root"}}})
	return s
}

// oneConn is an unauthenticated client over a single connection, so a
// SASL conversation's commands share it.
func oneConn(t *testing.T, s *harness.Server) *mongo.Client {
	t.Helper()
	uri := fmt.Sprintf("mongodb://127.0.0.1:%d/?directConnection=true&maxPoolSize=1&serverSelectionTimeoutMS=3000", s.Port())
	c, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	return c
}

// stillServes fails unless a fresh client can log in and run a command.
func stillServes(t *testing.T, s *harness.Server) {
	t.Helper()
	c, err := loginClient(t, s, "root", "p", "SCRAM-SHA-256")
	if err != nil {
		t.Fatalf("server no longer serves logins: %v", err)
	}
	mustPing(t, c)
}

func binData(b []byte) bson.Binary { return bson.Binary{Data: b} }

// payloadOf returns a SASL reply's payload and conversationId.
func payloadOf(t *testing.T, reply bson.M) (string, any) {
	t.Helper()
	p, ok := reply["payload"].(bson.Binary)
	if !ok {
		t.Fatalf("reply without a payload: %v", reply)
	}
	return string(p.Data), reply["conversationId"]
}

// TestAuthAttackReplay: a client-final message recorded from a successful
// login fails (18) when replayed in a new conversation that started with
// the same client-first message (the server's nonce differs), and after
// its own conversation ended there is no conversation to continue (17).
func TestAuthAttackReplay(t *testing.T) {
	s := attackServer(t)
	client, err := scram.SHA256.NewClient("root", "p", "")
	if err != nil {
		t.Fatal(err)
	}
	conv := client.NewConversation()
	first, _ := conv.Step("")
	a := oneConn(t, s)
	sf, id := payloadOf(t, runOK(t, a, "admin", harness.SaslStart("SCRAM-SHA-256", binData([]byte(first)))))
	final, err := conv.Step(sf)
	if err != nil {
		t.Fatal(err)
	}
	if out := runOK(t, a, "admin", harness.SaslContinue(id, binData([]byte(final)))); out["done"] != true {
		t.Fatalf("login not done: %v", out)
	}
	wantRoleErr(t, a, "admin", harness.SaslContinue(id, binData([]byte(final))), 17, "No SASL session state")

	b := oneConn(t, s)
	sf2, id2 := payloadOf(t, runOK(t, b, "admin", harness.SaslStart("SCRAM-SHA-256", binData([]byte(first)))))
	if sf2 == sf {
		t.Fatal("the server reused its nonce")
	}
	wantRoleErr(t, b, "admin", harness.SaslContinue(id2, binData([]byte(final))), 18, "Authentication failed")
	if _, err := runCmd(t, b, "app", bson.D{{Key: "find", Value: "c"}}); cmdCode(err) != 13 {
		t.Fatalf("find after a replayed login: %v", err)
	}
	stillServes(t, s)
}

// TestAuthAttackOversized: a 1 MB user name and payloads over the 8 KiB
// limit are ProtocolError (17); a 1 MB mechanism name, or an x.509 user
// without TLS (MONGODB-X509 is then not enabled), MechanismUnavailable
// (334); the server keeps serving.
func TestAuthAttackOversized(t *testing.T) {
	s := attackServer(t)
	c := oneConn(t, s)
	huge := strings.Repeat("a", 1<<20)
	for _, tc := range []struct {
		name string
		cmd  bson.D
		db   string
		code int32
		msg  string
	}{
		{"1 MB user name", harness.SaslStart("SCRAM-SHA-256", binData([]byte("n,,n="+huge+",r=abc"))), "admin", 17, "exceeds"},
		{"9 KiB of zeros", harness.SaslStart("SCRAM-SHA-1", binData(make([]byte, 9<<10))), "admin", 17, "exceeds"},
		{"1 MB string payload", harness.SaslStart("SCRAM-SHA-256", huge), "admin", 17, "exceeds"},
		{"1 MB x.509 user", bson.D{{Key: "authenticate", Value: 1}, {Key: "mechanism", Value: "MONGODB-X509"}, {Key: "user", Value: huge}}, "$external", 334, "MONGODB-X509"},
		{"1 MB mechanism", harness.SaslStart(huge, binData([]byte("n,,n=root,r=abc"))), "admin", 334, "not enabled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runCmd(t, c, tc.db, tc.cmd)
			if cmdCode(err) != tc.code || !strings.Contains(fmt.Sprint(err), tc.msg) {
				t.Errorf("got %.300v, want %d %q", err, tc.code, tc.msg) // the command itself is 1 MB: not printed
			}
		})
	}
	stillServes(t, s)
}

// TestAuthAttackGarbage: garbage mechanisms, payloads of the wrong type
// or of random bytes, conversations continued without being started, with
// a wrong id or after a failure, and authenticate misused: each answers
// its MongoDB error code and the server keeps serving.
func TestAuthAttackGarbage(t *testing.T) {
	s := attackServer(t)
	c := oneConn(t, s)
	rng := rand.New(rand.NewPCG(13, 7))
	randomBytes := func(n int) bson.Binary {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		return binData(b)
	}
	valid := binData([]byte("n,,n=root,r=fyko+d2lbbFgONRv9qkxdawL"))
	type step struct {
		name string
		db   string
		cmd  bson.D
		code int32 // 0: must succeed
	}
	steps := []step{
		{"mechanism garbage", "admin", harness.SaslStart("SCRAM-SHA-512", valid), 334},
		{"mechanism binary", "admin", harness.SaslStart("\x00\xff\xfe", valid), 334},
		{"mechanism lower case", "admin", harness.SaslStart("scram-sha-256", valid), 334},
		{"mechanism PLAIN", "admin", harness.SaslStart("PLAIN", binData([]byte("\x00root\x00p"))), 334},
		{"payload int", "admin", harness.SaslStart("SCRAM-SHA-256", int32(5)), 14},
		{"payload document", "admin", harness.SaslStart("SCRAM-SHA-256", bson.D{{Key: "x", Value: 1}}), 14},
		{"payload null", "admin", harness.SaslStart("SCRAM-SHA-256", nil), 14},
		{"continue without a conversation", "admin", harness.SaslContinue(int32(1), valid), 17},
		{"continue with garbage id", "admin", harness.SaslContinue("x", randomBytes(32)), 17},
		{"random payload", "admin", harness.SaslStart("SCRAM-SHA-256", randomBytes(64)), 18},
		{"channel binding asked", "admin", harness.SaslStart("SCRAM-SHA-256", binData([]byte("p=tls-server-end-point,,n=root,r=abc"))), 18},
		{"valid start", "admin", harness.SaslStart("SCRAM-SHA-256", valid), 0},
		{"continue with a wrong id", "admin", harness.SaslContinue(int32(2), randomBytes(16)), 17},
		{"continue on another database", "app", harness.SaslContinue(int32(1), randomBytes(16)), 17},
		{"continue with random bytes", "admin", harness.SaslContinue(int32(1), randomBytes(200)), 18},
		{"continue after the failure", "admin", harness.SaslContinue(int32(1), randomBytes(16)), 17},
		{"authenticate garbage mechanism", "$external", bson.D{{Key: "authenticate", Value: 1}, {Key: "mechanism", Value: "\x01junk"}}, 334},
		{"authenticate x.509 outside $external", "admin", bson.D{{Key: "authenticate", Value: 1}, {Key: "mechanism", Value: "MONGODB-X509"}}, 17},
		{"authenticate x.509 without TLS", "$external", bson.D{{Key: "authenticate", Value: 1}, {Key: "mechanism", Value: "MONGODB-X509"}}, 334},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			err := c.Database(st.db).RunCommand(ctx, st.cmd).Err()
			if got := cmdCode(err); (st.code == 0 && err != nil) || (st.code != 0 && got != st.code) {
				t.Errorf("got %v (code %d), want code %d", err, got, st.code)
			}
		})
	}
	if _, err := runCmd(t, c, "app", bson.D{{Key: "find", Value: "c"}}); cmdCode(err) != 13 {
		t.Fatalf("find after the garbage: %v", err)
	}
	stillServes(t, s)
}

// TestAuthAttackUserExistenceTiming: the first SASL step for a user that
// exists and for one that does not (a decoy credential) take the same
// time within noise, so timing does not reveal whether a user exists.
// It interleaves the two, compares medians and logs them.
func TestAuthAttackUserExistenceTiming(t *testing.T) {
	s := attackServer(t)
	c := oneConn(t, s)
	const rounds = 300
	var real, ghost []time.Duration
	for i := 0; i < rounds; i++ {
		for _, u := range []string{"root", "ghost"} {
			start := time.Now()
			runOK(t, c, "admin", harness.SaslStart("SCRAM-SHA-256", binData([]byte("n,,n="+u+",r=fyko+d2lbbFgONRv9qkxdawL"))))
			if d := time.Since(start); u == "root" {
				real = append(real, d)
			} else {
				ghost = append(ghost, d)
			}
		}
	}
	mr, mg := median(real), median(ghost)
	t.Logf("saslStart median over %d rounds: existing user %v, missing user %v", rounds, mr, mg)
	diff := max(mr, mg) - min(mr, mg)
	if diff > time.Millisecond && diff > max(mr, mg)/2 {
		t.Fatalf("saslStart takes %v for an existing user and %v for a missing one", mr, mg)
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
