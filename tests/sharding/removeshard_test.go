package sharding

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/relaydb/relaydb/tests/harness"
)

// TestRemoveShard: removing sh1, which owns no chunk and is the primary of
// database rs, answers "started" (draining: true in config.shards and
// listShards, rs in dbsToMove; a new database is not placed on sh1), then "ongoing" with
// one database left; after movePrimary
// "completed", and config.shards no longer lists it; rs's documents are
// all readable through the router. An unknown shard is ShardNotFound, the
// last shard IllegalOperation.
func TestRemoveShard(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "enableSharding", Value: "rs"}, {Key: "primaryShard", Value: "sh1"}}).Err(), "enableSharding")
	docs := make([]any, 500)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}}
	}
	_, err := cl.Database("rs").Collection("c").InsertMany(ctxT(t), docs)
	must(t, err, "seed rs.c")

	remove := func(shard string) (bson.M, error) {
		var out bson.M
		err := admin.RunCommand(ctxT(t), bson.D{{Key: "removeShard", Value: shard}}).Decode(&out)
		return out, err
	}
	_, err = remove("nope")
	wantCode(t, err, 70, "removeShard of an unknown shard")

	got, err := remove("sh1")
	must(t, err, "removeShard sh1")
	if got["state"] != "started" || got["msg"] != "draining started successfully" || got["shard"] != "sh1" || !sameList(got["dbsToMove"], "rs") {
		t.Fatalf("first removeShard: %v", got)
	}
	if !shardDraining(t, cl, "sh1") {
		t.Fatal("config.shards does not mark sh1 draining")
	}
	var ls struct {
		Shards []struct {
			ID       string `bson:"_id"`
			Draining bool   `bson:"draining"`
		}
	}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "listShards", Value: 1}}).Decode(&ls), "listShards")
	if len(ls.Shards) != 2 || ls.Shards[0].Draining || !ls.Shards[1].Draining {
		t.Fatalf("listShards while sh1 drains: %+v, want draining: true on sh1 only", ls.Shards)
	}
	// sh0 is the primary of two databases, sh1 of one: a new database
	// would go to sh1, but not while it drains.
	for _, db := range []string{"x1", "x2"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "enableSharding", Value: db}, {Key: "primaryShard", Value: "sh0"}}).Err(), "enableSharding %s", db)
	}
	_, err = cl.Database("newdb").Collection("c").InsertOne(ctxT(t), bson.D{{Key: "a", Value: 1}})
	must(t, err, "insert into a new database")
	if p := dbVersion(t, cl, "newdb").Primary; p != "sh0" {
		t.Fatalf("a new database was placed on %s while sh1 drains, want sh0", p)
	}
	var ongoing struct {
		State     string
		Remaining struct{ Chunks, Dbs, JumboChunks int64 }
	}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "removeShard", Value: "sh1"}}).Decode(&ongoing), "removeShard sh1 again")
	if ongoing.State != "ongoing" || ongoing.Remaining.Dbs != 1 || ongoing.Remaining.Chunks != 0 || ongoing.Remaining.JumboChunks != 0 {
		t.Fatalf("second removeShard: %+v, want ongoing with 1 db and no chunks left", ongoing)
	}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "movePrimary", Value: "rs"}, {Key: "to", Value: "sh0"}}).Err(), "movePrimary rs to sh0")
	got, err = remove("sh1")
	must(t, err, "removeShard sh1 after movePrimary")
	if got["state"] != "completed" || got["msg"] != "removeshard completed successfully" {
		t.Fatalf("third removeShard: %v, want completed", got)
	}
	if n, err := cl.Database("config").Collection("shards").CountDocuments(ctxT(t), bson.D{}); err != nil || n != 1 {
		t.Fatalf("config.shards after the removal: %d (%v), want 1", n, err)
	}
	if n, err := cl.Database("rs").Collection("c").CountDocuments(ctxT(t), bson.D{}); err != nil || n != 500 {
		t.Fatalf("rs.c through the router: %d (%v), want 500", n, err)
	}
	_, err = remove("sh0")
	wantCode(t, err, 20, "removeShard of the last shard")
}

func shardDraining(t *testing.T, cl *mongo.Client, id string) bool {
	t.Helper()
	var d bson.M
	must(t, cl.Database("config").Collection("shards").FindOne(ctxT(t), bson.D{{Key: "_id", Value: id}}).Decode(&d), "config.shards %s", id)
	return d["draining"] == true
}

func sameList(v any, want ...string) bool {
	arr, _ := v.(bson.A)
	if len(arr) != len(want) {
		return false
	}
	for i, w := range want {
		if arr[i] != w {
			return false
		}
	}
	return true
}

// TestRemoveShardDrainsChunks: removing sh1, which owns two chunks of a
// sharded collection (moved there with moveChunk), answers "ongoing" with
// its chunks while the balancer (every 200 ms) moves them to sh0, then
// "completed"; every chunk is on sh0 afterwards, no document is lost,
// and a read the router's stale routing table sends to sh1 is retargeted.
func TestRemoveShardDrainsChunks(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	cfg := harness.FirstMemberClient(t, tp.cfg)
	must(t, cfg.Database("admin").RunCommand(ctxT(t), bson.D{{Key: "setParameter", Value: 1}, {Key: "balancerRoundIntervalMS", Value: 200}}).Err(), "setParameter")
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "enableSharding", Value: "dr"}, {Key: "primaryShard", Value: "sh0"}}).Err(), "enableSharding")
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "dr.c"}, {Key: "key", Value: bson.D{{Key: "k", Value: 1}}}}).Err(), "shardCollection")
	docs := make([]any, 1000)
	for i := range docs {
		docs[i] = bson.D{{Key: "k", Value: int32(i)}}
	}
	_, err := cl.Database("dr").Collection("c").InsertMany(ctxT(t), docs)
	must(t, err, "load dr.c")
	for _, at := range []int32{250, 500, 750} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "split", Value: "dr.c"}, {Key: "middle", Value: bson.D{{Key: "k", Value: at}}}}).Err(), "split at %d", at)
	}
	for _, k := range []int32{600, 900} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "moveChunk", Value: "dr.c"}, {Key: "find", Value: bson.D{{Key: "k", Value: k}}},
			{Key: "to", Value: "sh1"}, {Key: "_waitForDelete", Value: true}}).Err(), "moveChunk of %d to sh1", k)
	}
	if n := chunksOn(t, cl, "sh1"); n != 2 {
		t.Fatalf("sh1 owns %d chunks before the removal, want 2", n)
	}

	var first struct{ State string }
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "removeShard", Value: "sh1"}}).Decode(&first), "removeShard sh1")
	if first.State != "started" {
		t.Fatalf("first removeShard: %+v", first)
	}
	sawChunks := waitRemoved(t, admin, "sh1", 60*time.Second)
	t.Logf("removeShard reported at most %d chunks left", sawChunks)
	if n := chunksOn(t, cl, "sh0"); n != 4 {
		t.Errorf("sh0 owns %d chunks after the removal, want 4", n)
	}
	// The router's routing table still names sh1 for k: 600; the removed
	// shard makes it refresh rather than fail.
	var d bson.M
	must(t, cl.Database("dr").Collection("c").FindOne(ctxT(t), bson.D{{Key: "k", Value: int32(600)}}).Decode(&d), "find k: 600 after the removal")
	n, err := cl.Database("dr").Collection("c").CountDocuments(ctxT(t), bson.D{{Key: "k", Value: bson.D{{Key: "$gte", Value: int32(500)}}}})
	if err != nil || n != 500 {
		t.Errorf("count of k >= 500 after the removal: %d (%v), want 500", n, err)
	}
	if n, err := cl.Database("dr").Collection("c").CountDocuments(ctxT(t), bson.D{}); err != nil || n != 1000 {
		t.Errorf("dr.c through the router: %d (%v), want 1000", n, err)
	}
}

// waitRemoved calls removeShard until it answers "completed" (at most
// within d) and returns the most chunks an "ongoing" answer reported.
func waitRemoved(t *testing.T, admin *mongo.Database, shard string, d time.Duration) int64 {
	t.Helper()
	deadline := time.Now().Add(d)
	var most int64
	for time.Now().Before(deadline) {
		var p struct {
			State     string
			Remaining struct{ Chunks int64 }
		}
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "removeShard", Value: shard}}).Decode(&p), "removeShard %s", shard)
		if p.State == "completed" {
			return most
		}
		most = max(most, p.Remaining.Chunks)
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("removeShard %s not completed within %v", shard, d)
	return 0
}

// chunksOn counts config.chunks owned by shard.
func chunksOn(t *testing.T, cl *mongo.Client, shard string) int64 {
	t.Helper()
	n, err := cl.Database("config").Collection("chunks").CountDocuments(ctxT(t), bson.D{{Key: "shard", Value: shard}})
	must(t, err, "count config.chunks on %s", shard)
	return n
}
