package sharding

import (
	"errors"
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestViewsOnShardedCollections: a view over a sharded collection read
// through the router answers from every shard (the primary shard answers
// 169 with the resolved view and the router re-runs it as a sharded
// aggregate), in the shape of the command sent: find and aggregate
// cursors named after the view (getMore included), count, distinct,
// views on views and explain.
func TestViewsOnShardedCollections(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	db := setUpViews(t, tp, cl)
	v := db.Collection("v")

	t.Run("find", func(t *testing.T) {
		opts := options.Find().SetSort(bson.D{{Key: "x", Value: -1}}).SetSkip(3).SetLimit(10).
			SetProjection(bson.D{{Key: "x", Value: 1}, {Key: "_id", Value: 0}})
		got := findInts(t, v, bson.D{{Key: "x", Value: bson.D{{Key: "$gte", Value: 50}}}}, opts, "x")
		want := viewXs(50, false)
		want = want[3:13]
		if !slices.Equal(got, want) {
			t.Fatalf("find on the view = %v, want %v", got, want)
		}
		if all := findInts(t, v, bson.D{}, options.Find(), "x"); int32(len(all)) != viewN {
			t.Fatalf("find {} on the view: %d documents, want %d", len(all), viewN)
		}
	})

	t.Run("getMore", func(t *testing.T) {
		var res bson.Raw
		must(t, db.RunCommand(ctxT(t), bson.D{{Key: "find", Value: "v"}, {Key: "batchSize", Value: 7}}).Decode(&res), "find")
		if ns := res.Lookup("cursor", "ns").StringValue(); ns != "vw.v" {
			t.Fatalf("cursor ns %q, want vw.v", ns)
		}
		id := res.Lookup("cursor", "id").Int64()
		seen := len(arrayOf(res.Lookup("cursor", "firstBatch")))
		for id != 0 {
			must(t, db.RunCommand(ctxT(t), bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "v"}, {Key: "batchSize", Value: 50}}).Decode(&res), "getMore")
			seen += len(arrayOf(res.Lookup("cursor", "nextBatch")))
			id = res.Lookup("cursor", "id").Int64()
		}
		if int32(seen) != viewN {
			t.Fatalf("find + getMores returned %d documents, want %d", seen, viewN)
		}
		// killCursors naming the view closes such a cursor.
		must(t, db.RunCommand(ctxT(t), bson.D{{Key: "find", Value: "v"}, {Key: "batchSize", Value: 2}}).Decode(&res), "find")
		id = res.Lookup("cursor", "id").Int64()
		must(t, db.RunCommand(ctxT(t), bson.D{{Key: "killCursors", Value: "v"}, {Key: "cursors", Value: bson.A{id}}}).Decode(&res), "killCursors")
		if k := arrayOf(res.Lookup("cursorsKilled")); len(k) != 1 {
			t.Fatalf("killCursors = %v", res)
		}
	})

	t.Run("count", func(t *testing.T) {
		e, err := v.EstimatedDocumentCount(ctxT(t))
		must(t, err, "estimatedDocumentCount")
		c, err := v.CountDocuments(ctxT(t), bson.D{{Key: "x", Value: bson.D{{Key: "$lt", Value: 100}}}})
		must(t, err, "countDocuments")
		if e != int64(viewN) || c != int64(len(viewXs(0, true))-countAtLeast(100)) {
			t.Fatalf("estimated %d (want %d), countDocuments x<100 %d", e, viewN, c)
		}
		var res struct{ N int32 }
		must(t, db.RunCommand(ctxT(t), bson.D{{Key: "count", Value: "v"}, {Key: "query", Value: bson.D{}}, {Key: "skip", Value: 10}, {Key: "limit", Value: 20}}).Decode(&res), "count")
		if res.N != 20 {
			t.Fatalf("count skip 10 limit 20 = %d", res.N)
		}
	})

	t.Run("distinct", func(t *testing.T) {
		var res struct{ Values []int32 }
		must(t, db.RunCommand(ctxT(t), bson.D{{Key: "distinct", Value: "v"}, {Key: "key", Value: "g"}}).Decode(&res), "distinct")
		slices.Sort(res.Values)
		if !slices.Equal(res.Values, []int32{0, 1, 2, 3, 4}) {
			t.Fatalf("distinct g on the view = %v", res.Values)
		}
		// x is unique: every shard's documents are needed.
		must(t, db.RunCommand(ctxT(t), bson.D{{Key: "distinct", Value: "v"}, {Key: "key", Value: "x"}, {Key: "query", Value: bson.D{{Key: "x", Value: bson.D{{Key: "$gte", Value: 150}}}}}}).Decode(&res), "distinct x")
		if len(res.Values) != countAtLeast(150) {
			t.Fatalf("distinct x on the view: %d values, want %d", len(res.Values), countAtLeast(150))
		}
	})

	t.Run("aggregate", func(t *testing.T) {
		cur, err := v.Aggregate(ctxT(t), bson.A{
			bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$g"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
			bson.D{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
		})
		must(t, err, "aggregate")
		var groups []struct {
			ID int32 `bson:"_id"`
			N  int32
		}
		must(t, cur.All(ctxT(t), &groups), "aggregate")
		total := int32(0)
		for _, g := range groups {
			total += g.N
		}
		if len(groups) != 5 || total != viewN {
			t.Fatalf("groups %v (total %d, want %d)", groups, total, viewN)
		}
	})

	t.Run("viewOnView", func(t *testing.T) {
		n, err := db.Collection("vv").CountDocuments(ctxT(t), bson.D{})
		must(t, err, "count vv")
		if n != int64(countAtLeast(100)) {
			t.Fatalf("view on the view: %d documents, want %d", n, countAtLeast(100))
		}
		got := findInts(t, db.Collection("vv"), bson.D{}, options.Find().SetSort(bson.D{{Key: "x", Value: 1}}).SetLimit(3), "x")
		if !slices.Equal(got, viewXs(100, true)[:3]) {
			t.Fatalf("find on the view on the view = %v", got)
		}
	})

	t.Run("explain", func(t *testing.T) {
		var res bson.Raw
		must(t, db.RunCommand(ctxT(t), bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "v"}, {Key: "filter", Value: bson.D{{Key: "x", Value: 3}}}}}}).Decode(&res), "explain find")
		// The re-run aggregate's explain: the view's $match first, on
		// both shards' chunks of vw.c.
		shards, ok := res.Lookup("shards").DocumentOK()
		if !ok || shards.Lookup("sh0", "queryPlanner", "namespace").StringValue() != "vw.c" || shards.Lookup("sh1", "queryPlanner", "namespace").StringValue() != "vw.c" {
			t.Fatalf("explain of a find on the view does not name both shards' vw.c: %s", res)
		}
		first := arrayOf(res.Lookup("splitPipeline", "shardsPart"))
		if len(first) != 2 || !containsAll(first[0].String(), "$match", "\"g\"") || !containsAll(first[1].String(), "\"x\"") {
			t.Fatalf("explain's shardsPart = %v", first)
		}
	})

	t.Run("shardAnswers169", func(t *testing.T) {
		// Asked directly, the primary shard refuses to answer from its
		// chunks alone and tells the view's resolution.
		sdb := tp.shardClient(t, primaryShard(t, cl, "vw")).Database("vw")
		err := sdb.RunCommand(ctxT(t), bson.D{{Key: "count", Value: "vv"}}).Err()
		var ce mongo.CommandError
		if !errors.As(err, &ce) || ce.Code != 169 {
			t.Fatalf("count on the view, directly on its primary shard: %v, want 169", err)
		}
		rv, ok := ce.Raw.Lookup("resolvedView").DocumentOK()
		if !ok || rv.Lookup("ns").StringValue() != "vw.c" || len(arrayOf(rv.Lookup("pipeline"))) != 2 {
			t.Fatalf("resolvedView = %v", ce.Raw)
		}
	})

	t.Run("oneShardCursor", func(t *testing.T) {
		// vw.r is sharded on {g: 1} in one chunk: the re-run aggregate
		// targets one shard, whose cursor (named vw.r there) the client
		// continues by the view's name.
		admin := cl.Database("admin")
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "vw.r"}, {Key: "key", Value: bson.D{{Key: "g", Value: 1}}}}).Err(), "shardCollection vw.r")
		docs := make([]any, 20)
		for i := range docs {
			docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "g", Value: i % 3}}
		}
		_, err := db.Collection("r").InsertMany(ctxT(t), docs)
		must(t, err, "insert r")
		must(t, db.CreateView(ctxT(t), "rv", "r", bson.A{}), "create rv")
		cur, err := db.Collection("rv").Find(ctxT(t), bson.D{}, options.Find().SetBatchSize(3))
		must(t, err, "find rv")
		var all []bson.M
		must(t, cur.All(ctxT(t), &all), "iterate rv")
		if len(all) != 20 {
			t.Fatalf("find on rv with batchSize 3: %d documents, want 20", len(all))
		}
	})

	t.Run("unshardedStillLocal", func(t *testing.T) {
		n, err := db.Collection("uv").CountDocuments(ctxT(t), bson.D{})
		must(t, err, "count uv")
		if n != 3 {
			t.Fatalf("view on an unsharded collection: %d documents, want 3", n)
		}
	})
}
