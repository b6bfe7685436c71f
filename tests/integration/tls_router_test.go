package integration

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/tests/harness"
)

// startTLSMember starts a one-member set with requireTLS and role flags,
// initiates it and waits until it is primary.
func startTLSMember(t *testing.T, tlsq string, args []string, set string) *harness.Server {
	t.Helper()
	s := harness.Start(t, harness.WithArgs(append(args, "--replSet", set)...), harness.WithURIOptions(tlsq))
	c, err := tlsConnect(t, s, tlsq)
	if err != nil {
		t.Fatal(err)
	}
	host := fmt.Sprintf("127.0.0.1:%d", s.Port())
	if _, err := runCmd(t, c, "admin", bson.D{{Key: "replSetInitiate", Value: bson.D{{Key: "_id", Value: set},
		{Key: "members", Value: bson.A{bson.D{{Key: "_id", Value: 0}, {Key: "host", Value: host}}}}}}}); err != nil {
		t.Fatalf("replSetInitiate %s: %v", set, err)
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if r, err := runCmd(t, c, "admin", bson.D{{Key: "hello", Value: 1}}); err == nil && r["isWritablePrimary"] == true {
			return s
		}
	}
	t.Fatalf("%s: no primary", set)
	return nil
}

// A sharded cluster whose config server and shard require TLS: the
// router (preferTLS, so the harness's plain readiness ping works) reaches
// them only over TLS, and the shard reaches the config server over TLS;
// addShard, writes and reads through the router work, and a TLS client
// of the router is served too.
func TestTLSShardedCluster(t *testing.T) {
	f := harness.TLSFiles(t)
	tlsq := harness.TLSQuery(f, f.ClientFile)
	req := harness.TLSArgs(f, "requireTLS")
	cfg := startTLSMember(t, tlsq, append(append([]string{}, req...), "--configsvr"), "tlscfg")
	sh := startTLSMember(t, tlsq, append(append([]string{}, req...), "--shardsvr"), "tlssh")
	r := harness.StartRouter(t, fmt.Sprintf("tlscfg/127.0.0.1:%d", cfg.Port()), harness.TLSArgs(f, "preferTLS")...)
	plain, err := mongo.Connect(options.Client().ApplyURI(r.URI() + "?serverSelectionTimeoutMS=5000"))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Disconnect(context.Background())
	ctx := tctx(t, 60*time.Second)
	if err := plain.Database("admin").RunCommand(ctx, bson.D{{Key: "addShard", Value: fmt.Sprintf("tlssh/127.0.0.1:%d", sh.Port())}}).Err(); err != nil {
		t.Fatalf("addShard over TLS: %v", err)
	}
	coll := plain.Database("app").Collection("c")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatalf("insert through the router: %v", err)
	}
	secure, err := mongo.Connect(options.Client().ApplyURI(r.URI() + "?serverSelectionTimeoutMS=5000&" + tlsq))
	if err != nil {
		t.Fatal(err)
	}
	defer secure.Disconnect(context.Background())
	if n, err := secure.Database("app").Collection("c").CountDocuments(ctx, bson.D{}); err != nil || n != 1 {
		t.Fatalf("count through the router over TLS: %d, %v", n, err)
	}
	for name, m := range map[string]*harness.Server{"config server": cfg, "shard": sh} {
		if log, _ := os.ReadFile(m.LogPath()); strings.Contains(string(log), "TLS is required") {
			t.Fatalf("the %s refused a plain connection (the router or a member dialled without TLS)", name)
		}
	}
}
