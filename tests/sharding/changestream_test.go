package sharding

import (
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestChangeStreamSharded: through the router a stream on a collection
// sharded over two shards, on its database and on the cluster sees the
// writes of both shards in clusterTime order, with the shard key in
// documentKey; resuming from an event of either shard continues with the
// next event; an idle shard does not hold an event back for more than
// ~2 s; a chunk migration (clone, range deletion) yields no event.
func TestChangeStreamSharded(t *testing.T) {
	tp, cl := csWatchSetup(t)
	coll := cl.Database("cs").Collection("c")
	ctx := ctxT(t)
	streams := map[string]*mongo.ChangeStream{}
	var err error
	streams["collection"], err = coll.Watch(ctx, mongo.Pipeline{})
	must(t, err, "watch the collection")
	streams["database"], err = cl.Database("cs").Watch(ctx, mongo.Pipeline{})
	must(t, err, "watch the database")
	streams["cluster"], err = cl.Watch(ctx, mongo.Pipeline{})
	must(t, err, "watch the cluster")
	xs := []int32{1, 150, 2, 160, 3, 170}
	for i, x := range xs {
		_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(i)}, {Key: "x", Value: x}})
		must(t, err, "insert x=%d", x)
	}
	var tokens []bson.Raw
	for name, cs := range streams {
		var last bson.Timestamp
		for i, x := range xs {
			ev := csNext(t, cs, 5*time.Second)
			full, _ := ev["fullDocument"].(bson.D)
			if ev["operationType"] != "insert" || csDocKey(ev, "_id") != int32(i) || len(full) != 2 || full[1].Value != x {
				t.Fatalf("%s stream: event %d is %v, want the insert of x=%d", name, i, ev, x)
			}
			if csDocKey(ev, "x") != x {
				t.Errorf("documentKey of %v has no shard key x=%d", ev, x)
			}
			ct := ev["clusterTime"].(bson.Timestamp)
			if ct.Before(last) {
				t.Errorf("%s stream: clusterTime %v after %v", name, ct, last)
			}
			last = ct
			if name == "collection" {
				tokens = append(tokens, cs.ResumeToken())
			}
		}
	}
	// Resume after the event of each shard (x=1 on one, x=150 on the other).
	for i := 0; i < 2; i++ {
		rs, err := coll.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetResumeAfter(tokens[i]))
		must(t, err, "resume after event %d", i)
		if ev := csNext(t, rs, 5*time.Second); csDocKey(ev, "x") != xs[i+1] {
			t.Errorf("resumed after event %d (x=%d): got %v, want x=%d", i, xs[i], ev, xs[i+1])
		}
		_ = rs.Close(ctx)
	}
	// An idle shard: writes on one shard only come within ~2 s.
	cs := streams["collection"]
	for _, x := range []int32{4, 5} {
		start := time.Now()
		_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 100 + x}, {Key: "x", Value: x}})
		must(t, err, "insert")
		ev := csNext(t, cs, 5*time.Second)
		if took := time.Since(start); took > 2*time.Second || csDocKey(ev, "x") != x {
			t.Errorf("insert x=%d on one shard: event %v after %v, want it within 2s", x, ev, took)
		}
		t.Logf("insert on one shard (the other idle) reached the stream in %v", time.Since(start))
	}
	// A chunk migration with its range deletion: no event; the next is ours.
	from := chunkOwner(t, tp, "cs.c", 150)
	must(t, cl.Database("admin").RunCommand(ctx, bson.D{{Key: "moveChunk", Value: "cs.c"}, {Key: "find", Value: bson.D{{Key: "x", Value: int32(150)}}},
		{Key: "to", Value: otherShard(from)}, {Key: "_waitForDelete", Value: true}}).Err(), "moveChunk")
	_, err = coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "after"}, {Key: "x", Value: int32(7)}})
	must(t, err, "insert after the migration")
	if ev := csNext(t, cs, 5*time.Second); csDocKey(ev, "_id") != "after" {
		t.Errorf("after a chunk migration the next event is %v, want the insert of _id 'after'", ev)
	}
	// Resume from the router's postBatchResumeToken (a high-water mark of
	// no event): the writes after it come, once each.
	if cs.TryNext(ctx) {
		t.Fatalf("an unexpected event: %v", cs.Current)
	}
	mark := cs.ResumeToken()
	for _, x := range []int32{8, 180} {
		_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 200 + x}, {Key: "x", Value: x}})
		must(t, err, "insert x=%d", x)
	}
	rs, err := coll.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetResumeAfter(mark))
	must(t, err, "resume after the postBatchResumeToken %v", mark)
	for _, x := range []int32{8, 180} {
		if ev := csNext(t, rs, 5*time.Second); csDocKey(ev, "x") != x {
			t.Errorf("resumed after the mark: %v, want the insert of x=%d", ev, x)
		}
	}
	if rs.TryNext(ctx) {
		t.Errorf("resumed after the mark: an extra event %v", rs.Current)
	}
	_ = rs.Close(ctx)
	for _, s := range streams {
		_ = s.Close(ctx)
	}
}

// TestChangeStreamNewShard: a cluster stream opened with one shard sees
// the writes of a shard added after it opened; so does a stream on a
// collection opened before the collection was sharded and its chunk
// moved to the new shard.
func TestChangeStreamNewShard(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	ctx := ctxT(t)
	must(t, admin.RunCommand(ctx, bson.D{{Key: "addShard", Value: seed(tp.shards["sh0"])}}).Err(), "addShard sh0")
	cs, err := cl.Watch(ctx, mongo.Pipeline{})
	must(t, err, "watch the cluster")
	if cs.TryNext(ctx) {
		t.Fatalf("an event before any write: %v", cs.Current)
	}
	collStream, err := cl.Database("ns2").Collection("c").Watch(ctx, mongo.Pipeline{})
	must(t, err, "watch ns2.c (not sharded yet)")
	must(t, admin.RunCommand(ctx, bson.D{{Key: "addShard", Value: seed(tp.shards["sh1"])}}).Err(), "addShard sh1")
	must(t, admin.RunCommand(ctx, bson.D{{Key: "shardCollection", Value: "ns2.c"}, {Key: "key", Value: bson.D{{Key: "x", Value: 1}}}}).Err(), "shardCollection")
	must(t, admin.RunCommand(ctx, bson.D{{Key: "split", Value: "ns2.c"}, {Key: "middle", Value: bson.D{{Key: "x", Value: int32(100)}}}}).Err(), "split")
	must(t, admin.RunCommand(ctx, bson.D{{Key: "moveChunk", Value: "ns2.c"}, {Key: "find", Value: bson.D{{Key: "x", Value: int32(100)}}},
		{Key: "to", Value: "sh1"}, {Key: "_waitForDelete", Value: true}}).Err(), "moveChunk to sh1")
	coll := cl.Database("ns2").Collection("c")
	for _, x := range []int32{1, 150} {
		_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: x}, {Key: "x", Value: x}})
		must(t, err, "insert x=%d", x)
	}
	for name, s := range map[string]*mongo.ChangeStream{"cluster": cs, "collection": collStream} {
		for _, x := range []int32{1, 150} {
			if ev := csNext(t, s, 5*time.Second); ev["operationType"] != "insert" || csDocKey(ev, "x") != x {
				t.Errorf("%s stream: event %v, want the insert of x=%d (x=150 is on the shard added later)", name, ev, x)
			}
		}
		_ = s.Close(ctx)
	}
}

// TestChangeStreamShardedDrop: dropping a collection sharded over two
// shards ends its stream with one drop and the invalidate.
func TestChangeStreamShardedDrop(t *testing.T) {
	_, cl := csWatchSetup(t)
	coll := cl.Database("cs").Collection("c")
	ctx := ctxT(t)
	cs, err := coll.Watch(ctx, mongo.Pipeline{})
	must(t, err, "watch")
	for _, x := range []int32{1, 150} {
		_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: x}, {Key: "x", Value: x}})
		must(t, err, "insert")
	}
	must(t, coll.Drop(ctx), "drop")
	var ops []any
	for len(ops) < 4 {
		ops = append(ops, csNext(t, cs, 5*time.Second)["operationType"])
		if ops[len(ops)-1] == "invalidate" {
			break
		}
	}
	if want := []any{"insert", "insert", "drop", "invalidate"}; fmt.Sprint(ops) != fmt.Sprint(want) {
		t.Errorf("events %v, want %v", ops, want)
	}
	if cs.Next(ctx) || cs.ID() != 0 {
		t.Errorf("the stream goes on after the invalidate (id %d, err %v)", cs.ID(), cs.Err())
	}
}
