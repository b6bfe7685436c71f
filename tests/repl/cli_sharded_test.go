package repl

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestClusterUpSharded drives `relaydb cluster up --shards` as an operator
// would on a small machine (one member per replica set): it prints a
// connection string naming both routers, the driver sees mongos (hello
// isdbgrid), both shards are listed, writes through either router land,
// status shows the three replica sets' primaries, and down stops it all.
func TestClusterUpSharded(t *testing.T) {
	requireReplication(t)
	dir := t.TempDir()
	t.Cleanup(func() { _, _, _ = runCLI(t, "down", "--dir", dir) })
	stdout, stderr, err := runCLI(t, "up", "--dir", dir, "--shards", "2", "--shard-members", "1",
		"--config-members", "1", "--routers", "2", "--timeout", "20s")
	if err != nil {
		t.Fatalf("cluster up --shards: %v\nstderr: %s", err, stderr)
	}
	uri := strings.TrimSpace(stdout)
	if !strings.HasPrefix(uri, "mongodb://127.0.0.1:") || strings.Count(uri, ",") != 1 || strings.Contains(uri, "replicaSet") {
		t.Fatalf("cluster up printed %q, want mongodb://127.0.0.1:p1,127.0.0.1:p2/", uri)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cl, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cl.Disconnect(context.Background()) }()
	var hello bson.M
	if err := cl.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
		t.Fatal(err)
	}
	if hello["msg"] != "isdbgrid" || hello["setName"] != nil {
		t.Fatalf("hello through the routers: %v, want msg isdbgrid and no setName", hello)
	}
	var shards struct{ Shards []bson.M }
	if err := cl.Database("admin").RunCommand(ctx, bson.D{{Key: "listShards", Value: 1}}).Decode(&shards); err != nil {
		t.Fatal(err)
	}
	if len(shards.Shards) != 2 || shards.Shards[0]["_id"] != "sh0" || shards.Shards[1]["_id"] != "sh1" {
		t.Fatalf("listShards: %v, want sh0 and sh1", shards.Shards)
	}
	coll := cl.Database("app").Collection("c")
	docs := []any{bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}}}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 2 {
		t.Fatalf("count through the routers: %d, %v; want 2", n, err)
	}
	shard := bson.D{{Key: "shardCollection", Value: "app.h"}, {Key: "key", Value: bson.D{{Key: "k", Value: "hashed"}}}}
	if err := cl.Database("admin").RunCommand(ctx, shard).Err(); err != nil {
		t.Fatalf("shardCollection app.h: %v", err)
	}
	out, _, err := runCLI(t, "status", "--dir", dir)
	if err != nil || len(primaryRow.FindAllString(out, -1)) != 3 || strings.Count(out, "running") < 2 {
		t.Fatalf("status: %v\n%s\nwant 3 PRIMARY (cfg, sh0, sh1) and both routers running", err, out)
	}
	// app lives on one shard; app.h's hashed key gives 2 chunks per shard.
	if !appRow.MatchString(out) || !hashedRow.MatchString(out) {
		t.Fatalf("status:\n%s\nwant app's primary shard and app.h with sh0=2 sh1=2", out)
	}
	if _, stderr, err := runCLI(t, "down", "--dir", dir); err != nil {
		t.Fatalf("cluster down: %v\n%s", err, stderr)
	}
	eventually(t, 10*time.Second, "every process stopped", func() error {
		out, _, _ := runCLI(t, "status", "--dir", dir)
		if strings.Contains(out, "running") {
			return errString("still running:\n" + out)
		}
		return nil
	})
}

var (
	primaryRow = regexp.MustCompile(`running\s+PRIMARY\s`)
	appRow     = regexp.MustCompile(`(?m)^app\s+sh[01]\s*$`)
	hashedRow  = regexp.MustCompile(`(?m)^app\.h\s+\{"k":"hashed"\}\s+4\s+sh0=2 sh1=2\s*$`)
)

type errString string

func (e errString) Error() string { return string(e) }
