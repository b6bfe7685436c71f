package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/relaydb/relaydb/tests/harness"
)

// clusterAuthMode x509 (no key file): members log in to each other with
// their certificates, so a set with auth on elects and replicates (the
// first user, created through the localhost exception, is acknowledged by
// all three members); a peer presenting the members' certificate is
// __system, one presenting a client certificate is not.
func TestX509MemberAuth(t *testing.T) {
	f := harness.TLSFiles(t)
	members, hosts := startTLSSet(t, f, "x509rs", "--clusterAuthMode", "x509")
	tlsq := harness.TLSQuery(f, f.ClientFile)
	var primary *harness.Server
	for deadline := time.Now().Add(30 * time.Second); primary == nil && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		for _, m := range members {
			c, err := tlsConnect(t, m, tlsq)
			if err != nil {
				continue
			}
			if reply, err := runCmd(t, c, "admin", bson.D{{Key: "hello", Value: 1}}); err == nil && reply["isWritablePrimary"] == true {
				primary = m
			}
		}
	}
	if primary == nil {
		t.Fatal("no primary within 30s")
	}
	anon, err := tlsConnect(t, primary, tlsq)
	if err != nil {
		t.Fatal(err)
	}
	w3 := bson.E{Key: "writeConcern", Value: bson.D{{Key: "w", Value: 3}, {Key: "wtimeout", Value: 30000}}}
	if _, err := runCmd(t, anon, "admin", bson.D{{Key: "createUser", Value: "root"}, {Key: "pwd", Value: "pw"},
		{Key: "roles", Value: bson.A{"root"}}, w3}); err != nil {
		t.Fatalf("createUser w:3 (every member replicates with x.509 logins): %v", err)
	}
	if _, err := anon.Database("app").Collection("c").InsertOne(tctx(t, opTimeout), bson.D{{Key: "x", Value: 1}}); cmdCode(err) != 13 {
		t.Fatalf("unauthenticated insert: %v, want Unauthorized (x509 member auth implies --auth)", err)
	}
	// The members' certificate logs in as __system; a client certificate
	// with another OU is no member (and no user).
	memberCert, err := tlsConnect(t, primary, harness.TLSQuery(f, f.MemberFile))
	if err != nil {
		t.Fatal(err)
	}
	x509 := bson.D{{Key: "authenticate", Value: 1}, {Key: "mechanism", Value: "MONGODB-X509"}}
	if _, err := runCmd(t, memberCert, "$external", x509); err != nil {
		t.Fatalf("member certificate login: %v", err)
	}
	st, err := runCmd(t, memberCert, "admin", bson.D{{Key: "connectionStatus", Value: 1}})
	if err != nil || !strings.Contains(fmt.Sprint(st["authInfo"]), "__system") {
		t.Fatalf("member certificate's connectionStatus: %v %v", st, err)
	}
	if _, err := runCmd(t, anon, "$external", x509); cmdCode(err) != 18 {
		t.Fatalf("client certificate as a member: %v, want AuthenticationFailed", err)
	}
	// Replication keeps working: a w:3 write through a logged-in client.
	uri := fmt.Sprintf("mongodb://root:pw@%s/?replicaSet=x509rs&authSource=admin&serverSelectionTimeoutMS=30000&%s", strings.Join(hosts, ","), tlsq)
	rs, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Disconnect(context.Background())
	coll := rs.Database("app").Collection("c", options.Collection().SetWriteConcern(&writeconcern.WriteConcern{W: 3}))
	if _, err := coll.InsertOne(tctx(t, 30*time.Second), bson.D{{Key: "x", Value: 2}}); err != nil {
		t.Fatalf("insert w:3: %v", err)
	}
}

// clusterAuthMode x509 in a sharded cluster: the router (preferTLS, so
// the harness's plain ping works) logs in to the config server and the
// shard with its certificate, the shard to the config server likewise;
// clients must authenticate through the router (its first user comes
// through the localhost exception), then addShard and writes work.
func TestX509ShardedCluster(t *testing.T) {
	f := harness.TLSFiles(t)
	tlsq := harness.TLSQuery(f, f.ClientFile)
	x509 := []string{"--clusterAuthMode", "x509"}
	req := append(harness.TLSArgs(f, "requireTLS"), x509...)
	cfg := startTLSMember(t, tlsq, append(append([]string{}, req...), "--configsvr"), "x509cfg")
	sh := startTLSMember(t, tlsq, append(append([]string{}, req...), "--shardsvr"), "x509sh")
	r := harness.StartRouter(t, fmt.Sprintf("x509cfg/127.0.0.1:%d", cfg.Port()), append(harness.TLSArgs(f, "preferTLS"), x509...)...)
	ctx := tctx(t, 60*time.Second)
	anon, err := mongo.Connect(options.Client().ApplyURI(r.URI() + "?serverSelectionTimeoutMS=5000"))
	if err != nil {
		t.Fatal(err)
	}
	defer anon.Disconnect(context.Background())
	if err := anon.Database("admin").RunCommand(ctx, bson.D{{Key: "createUser", Value: "root"}, {Key: "pwd", Value: "pw"},
		{Key: "roles", Value: bson.A{"root"}}}).Err(); err != nil {
		t.Fatalf("createUser through the router's localhost exception: %v", err)
	}
	if _, err := anon.Database("app").Collection("c").InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); cmdCode(err) != 13 {
		t.Fatalf("unauthenticated insert through the router: %v, want Unauthorized", err)
	}
	root, err := mongo.Connect(options.Client().ApplyURI(fmt.Sprintf("mongodb://root:pw@%s/?authSource=admin&serverSelectionTimeoutMS=5000", r.Host())))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Disconnect(context.Background())
	if err := root.Database("admin").RunCommand(ctx, bson.D{{Key: "addShard", Value: fmt.Sprintf("x509sh/127.0.0.1:%d", sh.Port())}}).Err(); err != nil {
		t.Fatalf("addShard: %v", err)
	}
	coll := root.Database("app").Collection("c")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatalf("insert through the router: %v", err)
	}
	if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 1 {
		t.Fatalf("count: %d, %v", n, err)
	}
}
