package main

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/tests/harness"
)

// TestClusterUpAuthTLS: `cluster up --auth --tls` gives a set whose printed
// URI (credentials, CA, client certificate) writes with w:majority, while
// a TLS client without credentials is refused (13) and a plain client
// cannot connect; the secrets are private files and the tooling (Load,
// replSetGetStatus) logs in.
func TestClusterUpAuthTLS(t *testing.T) {
	bin, err := harness.Binary()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dir := t.TempDir()
	c, err := cluster.Up(ctx, cluster.Spec{Dir: dir, Data: 3, Auth: true, TLS: true, Bin: bin, DieWithParent: true,
		PrimaryTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Down(ctx)
	for _, f := range []string{"keyfile", "cluster.json", "tls/ca.pem", "tls/member.pem", "tls/client.pem"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, mode %v; want 0600", f, err, st.Mode().Perm())
		}
	}
	uri := c.URI()
	insertMajority(t, uri)
	u, _ := url.Parse(uri)
	u.User = nil
	var ce mongo.CommandError
	if err := tryInsert(u.String()); !errors.As(err, &ce) || ce.Code != int32(mongoerr.Unauthorized) {
		t.Errorf("insert without credentials: %v, want Unauthorized", err)
	}
	plain := "mongodb://" + c.Members()[0].Host + "/?directConnection=true&serverSelectionTimeoutMS=1000"
	if err := tryInsert(plain); err == nil {
		t.Error("a plain (non-TLS) client wrote to a requireTLS set")
	}
	loaded, err := cluster.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Members []bson.M `bson:"members"`
	}
	if err := loaded.RunAdmin(ctx, loaded.Members()[1], bson.D{{Key: "replSetGetStatus", Value: 1}}, &st); err != nil || len(st.Members) != 3 {
		t.Errorf("replSetGetStatus through a loaded cluster: %v (%d members)", err, len(st.Members))
	}
}

// TestClusterUpShardedAuth: a sharded cluster with --auth gives a router
// URI that writes and refuses a client without credentials.
func TestClusterUpShardedAuth(t *testing.T) {
	bin, err := harness.Binary()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sc, err := cluster.UpSharded(ctx, cluster.ShardedSpec{Dir: t.TempDir(), Shards: 1, ShardMembers: 1, ConfigMembers: 1,
		Auth: true, Bin: bin, DieWithParent: true, PrimaryTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Down(ctx)
	insertMajority(t, sc.URI())
	var ce mongo.CommandError
	if err := tryInsert("mongodb://" + sc.Routers[0].Host + "/"); !errors.As(err, &ce) || ce.Code != int32(mongoerr.Unauthorized) {
		t.Errorf("insert through the router without credentials: %v, want Unauthorized", err)
	}
}

func insertMajority(t *testing.T, uri string) {
	t.Helper()
	cl, err := mongo.Connect(options.Client().ApplyURI(uri).SetTimeout(20 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Disconnect(context.Background())
	coll := cl.Database("app").Collection("c", options.Collection().SetWriteConcern(writeconcern.Majority()))
	if _, err := coll.InsertOne(context.Background(), bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatalf("insert w:majority through %s: %v", uri, err)
	}
}

func tryInsert(uri string) error {
	cl, err := mongo.Connect(options.Client().ApplyURI(uri).SetTimeout(3 * time.Second))
	if err != nil {
		return err
	}
	defer cl.Disconnect(context.Background())
	_, err = cl.Database("app").Collection("c").InsertOne(context.Background(), bson.D{{Key: "y", Value: 1}})
	return err
}
