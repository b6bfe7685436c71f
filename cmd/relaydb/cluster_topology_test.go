package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/tests/harness"
)

func TestParseAddShardArgs(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		members int
		arbiter string // "", "true", "false"
		err     string
	}{
		{args: []string{"--dir", "/c"}},
		{args: []string{"--dir", "/c", "--members", "1", "--arbiter"}, members: 1, arbiter: "true"},
		{args: []string{"--dir", "/c", "--arbiter=false"}, arbiter: "false"},
		{args: []string{"--members", "1"}, err: "--dir is required"},
		{args: []string{"--dir", "/c", "--members", "-1"}, err: "at least 1"},
		{args: []string{"--dir", "/c", "sh9"}, err: "unexpected arguments sh9"},
	} {
		a, err := parseAddShardArgs(tc.args)
		if tc.err != "" {
			var ue usageError
			if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.As(err, &ue) {
				t.Errorf("parseAddShardArgs(%q) = %v, want a usage error containing %q", tc.args, err, tc.err)
			}
			continue
		}
		got := ""
		if a.arbiter != nil {
			got = map[bool]string{true: "true", false: "false"}[*a.arbiter]
		}
		if err != nil || a.dir != "/c" || a.members != tc.members || got != tc.arbiter {
			t.Errorf("parseAddShardArgs(%q) = %+v arbiter %q (%v)", tc.args, a, got, err)
		}
	}
}

func TestParseRemoveShardArgs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want removeShardArgs
		err  string
	}{
		{args: []string{"--dir", "/c", "--shard", "sh1"}, want: removeShardArgs{dir: "/c", shard: "sh1", timeout: 10 * time.Minute}},
		{args: []string{"--dir", "/c", "--shard", "sh1", "--timeout", "30s"}, want: removeShardArgs{dir: "/c", shard: "sh1", timeout: 30 * time.Second}},
		{args: []string{"--dir", "/c"}, err: "--shard are required"},
		{args: []string{"--dir", "/c", "--shard", "sh1", "--timeout", "0s"}, err: "positive"},
		{args: []string{"--dir", "/c", "--shard", "sh1", "x"}, err: "unexpected arguments x"},
	} {
		a, err := parseRemoveShardArgs(tc.args)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseRemoveShardArgs(%q) = %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || a != tc.want {
			t.Errorf("parseRemoveShardArgs(%q) = %+v (%v), want %+v", tc.args, a, err, tc.want)
		}
	}
}

// TestClusterAddRemoveShard: on a one-shard cluster, add-shard starts sh1
// and adds it; remove-shard of sh0 (the primary of database app, owner of
// both chunks of app.s) with the balancer off says so and times out;
// with it on, it moves app's primary to sh1, waits while the balancer
// moves the chunks, stops sh0's process and records it in the state file;
// every document of app is read back through the router.
func TestClusterAddRemoveShard(t *testing.T) {
	bin, err := harness.Binary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sc, err := cluster.UpSharded(ctx, cluster.ShardedSpec{Dir: dir, Shards: 1, ShardMembers: 1, ConfigMembers: 1,
		Bin: bin, DieWithParent: true, PrimaryTimeout: 20 * time.Second})
	if sc != nil {
		t.Cleanup(func() {
			if now, err := cluster.LoadSharded(dir); err == nil {
				_ = now.Down(context.Background())
			}
		})
	}
	if err != nil {
		t.Fatal(err)
	}
	cl, err := mongo.Connect(options.Client().ApplyURI(sc.URI()))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cl.Disconnect(context.Background()) }()
	docs := make([]any, 200)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}}
	}
	if _, err := cl.Database("app").Collection("c").InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}

	var out, log bytes.Buffer
	if err := shardedAddShard(ctx, []string{"--dir", dir, "--members", "1"}, &out, &log); err != nil {
		t.Fatalf("add-shard: %v\n%s", err, log.String())
	}
	if strings.TrimSpace(out.String()) != "sh1" || !strings.Contains(log.String(), "added it as shard sh1") {
		t.Fatalf("add-shard printed %q / %q", out.String(), log.String())
	}
	if n := countShards(t, ctx, cl); n != 2 {
		t.Fatalf("config.shards after add-shard: %d, want 2", n)
	}

	shardTwoChunks(t, ctx, cl, sc)

	// With the balancer off the chunks cannot leave: remove-shard says so
	// and gives up at its timeout, leaving the shard running.
	admin := cl.Database("admin")
	if err := admin.RunCommand(ctx, bson.D{{Key: "balancerStop", Value: 1}}).Err(); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	err = shardedRemoveShard(ctx, []string{"--dir", dir, "--shard", "sh0", "--timeout", "2s"}, &log)
	if err == nil || !strings.Contains(err.Error(), "still draining") || !strings.Contains(log.String(), "the balancer is off") ||
		!strings.Contains(log.String(), "moved the primary of database app from sh0 to sh1") {
		t.Fatalf("remove-shard with the balancer off: %v\n%s", err, log.String())
	}
	if err := admin.RunCommand(ctx, bson.D{{Key: "balancerStart", Value: 1}}).Err(); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	if err := shardedRemoveShard(ctx, []string{"--dir", dir, "--shard", "sh0", "--timeout", "1m"}, &log); err != nil {
		t.Fatalf("remove-shard: %v\n%s", err, log.String())
	}
	t.Logf("remove-shard printed:\n%s", log.String())
	for _, want := range []string{"ongoing: 2 chunks", "completed", "flushed the routing cache of router0", "stopped the processes of sh0", "removed shard sh0"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("remove-shard output lacks %q", want)
		}
	}
	checkAfterRemoval(t, ctx, cl, dir, sc.Shards[0])
	var status bytes.Buffer
	if err := shardedStatus(ctx, dir, &status); err != nil {
		t.Fatalf("cluster status after the changes: %v\n%s", err, status.String())
	}
	if !strings.Contains(status.String(), "app") || !strings.Contains(status.String(), "sh1") {
		t.Errorf("cluster status after the changes:\n%s", status.String())
	}
}

// TestClusterTopologyUsage: bad add-shard/remove-shard command lines exit 2.
func TestClusterTopologyUsage(t *testing.T) {
	for _, args := range [][]string{{"add-shard"}, {"remove-shard", "--dir", t.TempDir()}, {"add-shard", "--dir", "/c", "x"}} {
		if code := clusterMain(args); code != exitBadOptions {
			t.Errorf("clusterMain(%q) = %d, want %d", args, code, exitBadOptions)
		}
	}
	if code := clusterMain([]string{"add-shard", "--dir", t.TempDir()}); code != exitError {
		t.Errorf("add-shard on a directory without a cluster = %d, want %d", code, exitError)
	}
}

// shardTwoChunks makes app.s sharded on {k: 1} with 100 documents in two
// chunks on sh0, and runs the balancer every 200 ms.
func shardTwoChunks(t *testing.T, ctx context.Context, cl *mongo.Client, sc *cluster.Sharded) {
	t.Helper()
	admin := cl.Database("admin")
	for _, cmd := range []bson.D{
		{{Key: "shardCollection", Value: "app.s"}, {Key: "key", Value: bson.D{{Key: "k", Value: 1}}}},
		{{Key: "split", Value: "app.s"}, {Key: "middle", Value: bson.D{{Key: "k", Value: 50}}}},
	} {
		if err := admin.RunCommand(ctx, cmd).Err(); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
	docs := make([]any, 100)
	for i := range docs {
		docs[i] = bson.D{{Key: "k", Value: i}}
	}
	if _, err := cl.Database("app").Collection("s").InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	p, err := sc.Config.WaitPrimary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Config.RunAdmin(ctx, p, bson.D{{Key: "setParameter", Value: 1}, {Key: "balancerRoundIntervalMS", Value: 200}}, nil); err != nil {
		t.Fatal(err)
	}
}

func countShards(t *testing.T, ctx context.Context, cl *mongo.Client) int64 {
	t.Helper()
	n, err := cl.Database("config").Collection("shards").CountDocuments(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// checkAfterRemoval: one shard left in config.shards and in the state
// file, sh0's process gone, every document readable.
func checkAfterRemoval(t *testing.T, ctx context.Context, cl *mongo.Client, dir string, sh0 *cluster.Cluster) {
	t.Helper()
	if n := countShards(t, ctx, cl); n != 1 {
		t.Errorf("config.shards after remove-shard: %d, want 1", n)
	}
	now, err := cluster.LoadSharded(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(now.Shards) != 1 || now.Shards[0].Spec().Name != "sh1" {
		t.Errorf("state file shards after remove-shard: %d, want only sh1", len(now.Shards))
	}
	if sh0.Alive(sh0.Members()[0]) {
		t.Error("sh0's member still runs")
	}
	if n, err := cl.Database("app").Collection("c").CountDocuments(ctx, bson.D{}); err != nil || n != 200 {
		t.Errorf("app.c through the router: %d (%v), want 200", n, err)
	}
	if n, err := cl.Database("app").Collection("s").CountDocuments(ctx, bson.D{}); err != nil || n != 100 {
		t.Errorf("the sharded app.s through the router: %d (%v), want 100", n, err)
	}
}
