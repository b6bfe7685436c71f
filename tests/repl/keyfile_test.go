package repl

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/relaydb/relaydb/tests/harness"
)

// TestKeyFileReplicaSet: three members started with one key file are
// initiated through the localhost exception, elect a primary and
// replicate; the root user created through the exception logs in on every
// member and reads a w:"majority" write on each secondary. A fourth member
// in the config, started with another key, is kept out: the others cannot
// log in to it nor it to them, so replSetGetStatus shows it not healthy,
// it never gets the config, the user or the writes. A client without
// credentials gets Unauthorized (13).
func TestKeyFileReplicaSet(t *testing.T) {
	good, key := harness.WriteKeyFile(t, "")
	bad, badKey := harness.WriteKeyFile(t, "")
	const set = "keyed"
	ms := startKeyed(t, set, good, good, good, bad)
	members := bson.A{}
	for i, m := range ms {
		prio := 1.0
		if i == 3 {
			prio = 0 // the outsider: it could not win anyway
		}
		members = append(members, bson.D{{Key: "_id", Value: i}, {Key: "host", Value: m.host}, {Key: "priority", Value: prio}})
	}
	anon := connect(t, ms[0].host, "", "", "")
	if _, err := runAdmin(anon, bson.D{{Key: "replSetInitiate", Value: bson.D{{Key: "_id", Value: set}, {Key: "members", Value: members}}}}); err != nil {
		t.Fatalf("replSetInitiate through the localhost exception: %v", err)
	}
	p := keyedPrimary(t, ms[:3], 30*time.Second)
	pAnon := connect(t, p.host, "", "", "")
	if _, err := runAdmin(pAnon, bson.D{{Key: "replSetGetStatus", Value: 1}}); err != nil {
		t.Fatalf("replSetGetStatus through the localhost exception: %v", err)
	}
	maj := bson.E{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}, {Key: "wtimeout", Value: 20000}}}
	if _, err := runAdmin(pAnon, bson.D{{Key: "createUser", Value: "root"}, {Key: "pwd", Value: "rootpw"}, {Key: "roles", Value: bson.A{"root"}}, maj}); err != nil {
		t.Fatalf("createUser through the localhost exception: %v", err)
	}
	checkUnauthorized(t, pAnon)

	root := connect(t, p.host, "root", "rootpw", "admin")
	ctx, cancel := ctxT(30 * time.Second)
	defer cancel()
	coll := root.Database("app").Collection("items", options.Collection().SetWriteConcern(writeconcern.Majority()))
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "v", Value: "secured"}}); err != nil {
		t.Fatalf("insert w:majority: %v", err)
	}
	for _, m := range ms[:3] {
		if m.host == p.host {
			continue
		}
		sec := connect(t, m.host, "root", "rootpw", "admin")
		var doc bson.M
		err := sec.Database("app").Collection("items", options.Collection().SetReadPreference(readpref.SecondaryPreferred())).
			FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Decode(&doc)
		if err != nil || doc["v"] != "secured" {
			t.Fatalf("read on secondary %s: %v %v", m.host, doc, err)
		}
	}
	checkOutsider(t, root, ms[3], badKey, key)
	checkAuthLogged(t, ms[:3], ms[3].host)
}

// checkUnauthorized: without credentials a client may not read, and the
// localhost exception is closed once a user exists.
func checkUnauthorized(t *testing.T, anon *mongo.Client) {
	t.Helper()
	ctx, cancel := ctxT(10 * time.Second)
	defer cancel()
	err := anon.Database("app").Collection("items").FindOne(ctx, bson.D{}).Err()
	if codeOf(err) != 13 {
		t.Fatalf("find without credentials: %v, want Unauthorized 13", err)
	}
	if _, err := runAdmin(anon, bson.D{{Key: "replSetGetStatus", Value: 1}}); codeOf(err) != 13 {
		t.Fatalf("replSetGetStatus after the first user: %v, want Unauthorized 13", err)
	}
	if _, err := runAdmin(anon, bson.D{{Key: "createUser", Value: "late"}, {Key: "pwd", Value: "x"}, {Key: "roles", Value: bson.A{}}}); codeOf(err) != 13 {
		t.Fatalf("createUser after the first user: %v, want Unauthorized 13", err)
	}
}

// checkOutsider: the member with another key is unhealthy in the set's
// status, and holds neither the config, the user nor the write; the set's
// members logged that they cannot authenticate to it.
func checkOutsider(t *testing.T, root *mongo.Client, out keyedMember, outKey, setKey string) {
	t.Helper()
	eventually(t, 10*time.Second, "outsider reported unhealthy", func() error {
		ctx, cancel := ctxT(10 * time.Second)
		defer cancel()
		var st struct {
			Members []struct {
				Name     string  `bson:"name"`
				Health   float64 `bson:"health"`
				StateStr string  `bson:"stateStr"`
			} `bson:"members"`
		}
		if err := root.Database("admin").RunCommand(ctx, bson.D{{Key: "replSetGetStatus", Value: 1}}).Decode(&st); err != nil {
			return err
		}
		for _, m := range st.Members {
			if m.Name == out.host {
				if m.Health != 0 {
					return fmt.Errorf("outsider health %v state %s", m.Health, m.StateStr)
				}
				return nil
			}
		}
		return fmt.Errorf("outsider %s not in status", out.host)
	})
	if err := scramPing(out.host, "root", "rootpw"); err == nil {
		t.Error("root logs in on the outsider: the user replicated to it")
	}
	if err := pingWith(harness.SystemURI(out.host, setKey)); err == nil {
		t.Error("the set's key logs in to the outsider")
	}
	sys := connect(t, out.host, "__system", outKey, "local")
	if _, err := runAdmin(sys, bson.D{{Key: "replSetGetConfig", Value: 1}}); codeOf(err) != 94 {
		t.Errorf("outsider has a config: %v, want NotYetInitialized 94", err)
	}
	sys = connect(t, out.host, "__system", outKey, "local")
	ctx, cancel := ctxT(10 * time.Second)
	defer cancel()
	names, err := sys.ListDatabaseNames(ctx, bson.D{})
	if err != nil || slices.Contains(names, "app") || !slices.Contains(names, "local") {
		t.Errorf("outsider's databases %v (%v): want local and no app", names, err)
	}
}

// checkAuthLogged: some member of the set logged that it cannot
// authenticate to host, and none logged it more than a few times.
func checkAuthLogged(t *testing.T, ms []keyedMember, host string) {
	t.Helper()
	total := 0
	for _, m := range ms {
		b, err := os.ReadFile(m.srv.LogPath())
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "cannot authenticate to a member") && strings.Contains(line, host) {
				n++
			}
		}
		if n > 3 { // one per pool (replication, and the sync source search) per minute
			t.Errorf("%s logged the failure %d times", m.host, n)
		}
		total += n
	}
	if total == 0 {
		t.Error("no member logged that it cannot authenticate to the outsider")
	}
}

// pingWith connects with uri and pings.
func pingWith(uri string) error { return harness.Ping(options.Client().ApplyURI(uri)) }

// TestKeyFileRefusedAtStart: a key file others can read, a key too short,
// --auth with --replSet but no key file, and clusterAuthMode x509 without
// TLS each stop `relaydb serve` before it listens, saying why.
func TestKeyFileRefusedAtStart(t *testing.T) {
	bin, err := harness.Binary()
	if err != nil {
		t.Fatal(err)
	}
	open, _ := harness.WriteKeyFile(t, "")
	if err := os.Chmod(open, 0o644); err != nil {
		t.Fatal(err)
	}
	short, _ := harness.WriteKeyFile(t, "abc")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--replSet", "rs", "--keyFile", open}, "permissions on " + open + " are too open"},
		{[]string{"--replSet", "rs", "--keyFile", short}, "length 3, must be between 6 and 1024"},
		{[]string{"--replSet", "rs", "--auth"}, "needs member authentication: give every member the same --keyFile"},
		{[]string{"--replSet", "rs", "--clusterAuthMode", "x509"}, "clusterAuthMode x509 needs TLS between members"},
	} {
		ctx, cancel := ctxT(20 * time.Second)
		args := append([]string{"serve", "--port", "1", "--dbpath", t.TempDir()}, tc.args...)
		out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
		cancel()
		if err == nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("%v: err %v, output:\n%s\nwant %q", tc.args, err, out, tc.want)
		}
	}
}

// TestKeyFileRotation: members whose key files list two keys in
// different orders (the middle step of a key rotation) log in to each
// other — each with its first key, accepted as any listed key — so a
// write acknowledged by all three members replicates.
func TestKeyFileRotation(t *testing.T) {
	_, a := harness.WriteKeyFile(t, "")
	_, b := harness.WriteKeyFile(t, "")
	ab, _ := harness.WriteKeyFile(t, "- "+a+"\n- "+b)
	ba, _ := harness.WriteKeyFile(t, "- "+b+"\n- "+a)
	const set = "rotating"
	ms := startKeyed(t, set, ab, ba, ba)
	members := bson.A{}
	for i, m := range ms {
		members = append(members, bson.D{{Key: "_id", Value: i}, {Key: "host", Value: m.host}})
	}
	if _, err := runAdmin(connect(t, ms[0].host, "", "", ""), bson.D{{Key: "replSetInitiate", Value: bson.D{{Key: "_id", Value: set}, {Key: "members", Value: members}}}}); err != nil {
		t.Fatalf("replSetInitiate: %v", err)
	}
	p := keyedPrimary(t, ms, 30*time.Second)
	w3 := bson.E{Key: "writeConcern", Value: bson.D{{Key: "w", Value: 3}, {Key: "wtimeout", Value: 20000}}}
	if _, err := runAdmin(connect(t, p.host, "", "", ""), bson.D{{Key: "createUser", Value: "root"}, {Key: "pwd", Value: "rootpw"}, {Key: "roles", Value: bson.A{"root"}}, w3}); err != nil {
		t.Fatalf("createUser w:3 (every member replicates): %v", err)
	}
	for _, m := range ms {
		if err := scramPing(m.host, "root", "rootpw"); err != nil {
			t.Errorf("root on %s: %v", m.host, err)
		}
	}
	for _, k := range []string{a, b} {
		if err := pingWith(harness.SystemURI(ms[0].host, k)); err != nil {
			t.Errorf("__system with either key on the [a, b] member: %v", err)
		}
	}
	st, err := runAdmin(connect(t, ms[1].host, "__system", b, "local"), bson.D{{Key: "connectionStatus", Value: 1}})
	if err != nil {
		t.Fatal(err)
	}
	info := fmt.Sprint(st["authInfo"])
	if !strings.Contains(info, "__system") || !strings.Contains(info, `"role":"__system","db":"admin"`) {
		t.Errorf("connectionStatus as __system: %s", info)
	}
}
