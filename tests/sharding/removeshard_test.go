package sharding

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// TestRemoveShard: removing sh1, which owns no chunk and is the primary of
// database rs, answers "started" (draining: true in config.shards, rs in
// dbsToMove), then "ongoing" with one database left; after movePrimary
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
