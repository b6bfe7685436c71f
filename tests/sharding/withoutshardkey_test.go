package sharding

import (
	"errors"
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// keyTopo is a two-shard cluster with db.c sharded on {x: "hashed"}
// (presplit over both shards) holding {_id: i, x: i, g: "a", v: i} for
// i < 40; onShard lists the x values each shard holds.
type keyTopo struct {
	tp      *topo
	cl      *mongo.Client
	coll    *mongo.Collection
	onShard map[string][]int
}

func startKeyTopo(t *testing.T, db string) *keyTopo {
	t.Helper()
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: db + ".c"},
		{Key: "key", Value: bson.D{{Key: "x", Value: "hashed"}}}}).Err(), "shardCollection")
	kt := &keyTopo{tp: tp, cl: cl, coll: cl.Database(db).Collection("c"), onShard: map[string][]int{}}
	docs := make([]any, 40)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "x", Value: i}, {Key: "g", Value: "a"}, {Key: "v", Value: i}}
	}
	_, err := kt.coll.InsertMany(ctxT(t), docs)
	must(t, err, "insert")
	for _, name := range []string{"sh0", "sh1"} {
		for _, d := range kt.shardDocs(t, name, bson.D{}) {
			x, _ := d.Lookup("x").AsInt64OK()
			kt.onShard[name] = append(kt.onShard[name], int(x))
		}
		slices.Sort(kt.onShard[name])
		if len(kt.onShard[name]) < 5 {
			t.Fatalf("shard %s holds %v: the hashed presplit should spread 40 documents", name, kt.onShard[name])
		}
	}
	return kt
}

// pick returns the n-th x value in [10, 30) that shard name held at the
// start (the range the tests leave alone until they pick from it).
func (kt *keyTopo) pick(t *testing.T, name string, n int) int {
	t.Helper()
	for _, x := range kt.onShard[name] {
		if x >= 10 && x < 30 {
			if n == 0 {
				return x
			}
			n--
		}
	}
	t.Fatalf("shard %s holds too few values in [10, 30): %v", name, kt.onShard[name])
	return 0
}

// shardDocs reads the collection directly on shard name.
func (kt *keyTopo) shardDocs(t *testing.T, name string, filter bson.D) []bson.Raw {
	t.Helper()
	cur, err := kt.tp.shardClient(t, name).Database(kt.coll.Database().Name()).Collection("c").Find(ctxT(t), filter)
	must(t, err, "find on %s", name)
	var out []bson.Raw
	must(t, cur.All(ctxT(t), &out), "read %s", name)
	return out
}

// countBoth counts filter's matches on both shards directly.
func (kt *keyTopo) countBoth(t *testing.T, filter bson.D) int {
	t.Helper()
	return len(kt.shardDocs(t, "sh0", filter)) + len(kt.shardDocs(t, "sh1", filter))
}

// TestWriteWithoutShardKey is issue #11's MongoDB 7.0 single-document
// writes without the shard key through the router, on documents matching
// on both shards.
func TestWriteWithoutShardKey(t *testing.T) {
	kt := startKeyTopo(t, "wk")
	coll := kt.coll

	t.Run("updateOne changes exactly one", func(t *testing.T) {
		res, err := coll.UpdateOne(ctxT(t), bson.D{{Key: "g", Value: "a"}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "hits", Value: 1}}}})
		must(t, err, "updateOne")
		if res.MatchedCount != 1 || res.ModifiedCount != 1 {
			t.Fatalf("updateOne = %+v", res)
		}
		if n := kt.countBoth(t, bson.D{{Key: "hits", Value: 1}}); n != 1 {
			t.Fatalf("%d documents changed, want 1", n)
		}
	})
	t.Run("deleteOne deletes exactly one", func(t *testing.T) {
		res, err := coll.DeleteOne(ctxT(t), bson.D{{Key: "g", Value: "a"}, {Key: "v", Value: bson.D{{Key: "$gte", Value: 30}}}})
		must(t, err, "deleteOne")
		if res.DeletedCount != 1 {
			t.Fatalf("deleteOne = %+v", res)
		}
		if n := kt.countBoth(t, bson.D{{Key: "v", Value: bson.D{{Key: "$gte", Value: 30}}}}); n != 9 {
			t.Fatalf("%d documents left with v >= 30, want 9", n)
		}
	})
	t.Run("replaceOne", func(t *testing.T) {
		res, err := coll.ReplaceOne(ctxT(t), bson.D{{Key: "v", Value: 5}}, bson.D{{Key: "x", Value: 5}, {Key: "g", Value: "a"}, {Key: "v", Value: 5}, {Key: "r", Value: true}})
		must(t, err, "replaceOne")
		if res.ModifiedCount != 1 {
			t.Fatalf("replaceOne = %+v", res)
		}
		if n := kt.countBoth(t, bson.D{{Key: "_id", Value: 5}, {Key: "r", Value: true}}); n != 1 {
			t.Fatalf("replaced document found %d times", n)
		}
	})
	t.Run("no match", func(t *testing.T) {
		res, err := coll.UpdateOne(ctxT(t), bson.D{{Key: "g", Value: "none"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: 1}}}})
		must(t, err, "updateOne")
		if res.MatchedCount != 0 {
			t.Fatalf("updateOne = %+v", res)
		}
		var got bson.M
		err = coll.FindOneAndUpdate(ctxT(t), bson.D{{Key: "g", Value: "none"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: 1}}}}).Decode(&got)
		if !errors.Is(err, mongo.ErrNoDocuments) {
			t.Fatalf("findOneAndUpdate of nothing: %v %v", got, err)
		}
	})
	for _, dir := range []int{-1, 1} {
		t.Run("findOneAndUpdate with sort "+itoa(dir), func(t *testing.T) {
			filter := bson.D{{Key: "g", Value: "a"}, {Key: "picked", Value: bson.D{{Key: "$exists", Value: false}}}}
			var want bson.M
			must(t, coll.FindOne(ctxT(t), filter, options.FindOne().SetSort(bson.D{{Key: "v", Value: dir}})).Decode(&want), "expected")
			var got bson.M
			must(t, coll.FindOneAndUpdate(ctxT(t), filter, bson.D{{Key: "$set", Value: bson.D{{Key: "picked", Value: dir}}}},
				options.FindOneAndUpdate().SetSort(bson.D{{Key: "v", Value: dir}}).SetReturnDocument(options.After)).Decode(&got), "findOneAndUpdate")
			if got["_id"] != want["_id"] || got["picked"] != int32(dir) {
				t.Fatalf("findOneAndUpdate sort %d = %v, want _id %v", dir, got, want["_id"])
			}
			if n := kt.countBoth(t, bson.D{{Key: "picked", Value: dir}}); n != 1 {
				t.Fatalf("%d documents picked", n)
			}
		})
	}
	t.Run("findOneAndDelete", func(t *testing.T) {
		var got bson.M
		must(t, coll.FindOneAndDelete(ctxT(t), bson.D{{Key: "v", Value: bson.D{{Key: "$lt", Value: 3}}}},
			options.FindOneAndDelete().SetSort(bson.D{{Key: "v", Value: 1}})).Decode(&got), "findOneAndDelete")
		if got["v"] != int32(0) {
			t.Fatalf("findOneAndDelete = %v, want v 0", got)
		}
		if n := kt.countBoth(t, bson.D{{Key: "_id", Value: 0}}); n != 0 {
			t.Fatalf("deleted document still there")
		}
	})
	t.Run("retried updateOne applies once", func(t *testing.T) {
		// The router runs the update, then reports a retryable
		// writeConcernError: the driver sends the same statement again.
		// One candidate on each shard: whichever the first attempt
		// changes, the retry's phase 1 finds the other one, on the other
		// shard, which must recognise the statement as already run.
		setRouterFailPoint(t, kt.cl, "update")
		ids := bson.A{kt.pick(t, "sh0", 0), kt.pick(t, "sh1", 0)}
		filter := bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}, {Key: "once", Value: bson.D{{Key: "$ne", Value: true}}}}
		res, err := coll.UpdateOne(ctxT(t), filter, bson.D{{Key: "$set", Value: bson.D{{Key: "once", Value: true}}}})
		must(t, err, "updateOne")
		if res.MatchedCount != 1 {
			t.Fatalf("updateOne = %+v", res)
		}
		if n := kt.countBoth(t, bson.D{{Key: "once", Value: true}}); n != 1 {
			t.Fatalf("the retried update changed %d documents, want 1", n)
		}
	})
	t.Run("retried deleteOne applies once", func(t *testing.T) {
		setRouterFailPoint(t, kt.cl, "delete")
		before := kt.countBoth(t, bson.D{{Key: "g", Value: "a"}})
		ids := bson.A{kt.pick(t, "sh0", 1), kt.pick(t, "sh1", 1)}
		res, err := coll.DeleteOne(ctxT(t), bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}})
		must(t, err, "deleteOne")
		if res.DeletedCount != 1 {
			t.Fatalf("deleteOne = %+v", res)
		}
		if after := kt.countBoth(t, bson.D{{Key: "g", Value: "a"}}); after != before-1 {
			t.Fatalf("the retried delete removed %d documents, want 1", before-after)
		}
	})
	t.Run("upsert without the key", func(t *testing.T) {
		// MongoDB 7.0 runs a single upsert without the key as a write
		// without shard key; a multi upsert needs the whole key.
		res, err := coll.UpdateOne(ctxT(t), bson.D{{Key: "g", Value: "new"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: 1}}}},
			options.UpdateOne().SetUpsert(true))
		must(t, err, "upsert without shard key")
		if res.UpsertedCount != 1 || kt.countBoth(t, bson.D{{Key: "g", Value: "new"}}) != 1 {
			t.Fatalf("upsert = %+v, want one new document", res)
		}
		_, err = coll.UpdateMany(ctxT(t), bson.D{{Key: "g", Value: "newer"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: 1}}}},
			options.UpdateMany().SetUpsert(true))
		checkWriteCode(t, err, 61, "multi upsert without shard key")
	})
}

// setRouterFailPoint makes the router's next cmd report a retryable
// writeConcernError after running it (the driver retries the write).
func setRouterFailPoint(t *testing.T, cl *mongo.Client, cmd string) {
	t.Helper()
	must(t, cl.Database("admin").RunCommand(ctxT(t), bson.D{{Key: "configureFailPoint", Value: "failCommand"},
		{Key: "mode", Value: bson.D{{Key: "times", Value: 1}}},
		{Key: "data", Value: bson.D{{Key: "failCommands", Value: bson.A{cmd}},
			{Key: "writeConcernError", Value: bson.D{{Key: "code", Value: 91}, {Key: "errmsg", Value: "Replication is being shut down"}}},
			{Key: "errorLabels", Value: bson.A{"RetryableWriteError"}}}}}).Err(), "configureFailPoint")
	t.Cleanup(func() {
		_ = cl.Database("admin").RunCommand(ctxT(t), bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "off"}}).Err()
	})
}

// checkBulkCode fails unless err is a bulk write error whose first write
// error has code; it returns that error's message.
func checkBulkCode(t *testing.T, err error, code int, what string) string {
	t.Helper()
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) || len(bwe.WriteErrors) == 0 || bwe.WriteErrors[0].Code != code {
		t.Fatalf("%s: %v, want a write error with code %d", what, err, code)
	}
	return bwe.WriteErrors[0].Message
}
