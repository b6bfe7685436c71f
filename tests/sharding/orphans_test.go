package sharding

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
)

// orphanDocs is how many documents the router inserts in TestOrphansFiltered.
const orphanDocs = 40

// TestOrphansFiltered is issue #12's orphan filtering on reads: on a
// collection sharded on {x: "hashed"} (two chunks per shard), documents
// written straight to a shard in a range the other shard owns (a copy of
// an owned document with the same _id, and a new one) are orphans. No
// read through the router sees or counts them (find with and without
// filter, sort and limit; count, countDocuments, estimatedDocumentCount,
// distinct, $group; a secondaryPreferred read served by sh1's secondary),
// explain shows SHARDING_FILTER on the shards, and a client connected
// straight to the shard still sees them.
func TestOrphansFiltered(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "orph.c"},
		{Key: "key", Value: bson.D{{Key: "x", Value: "hashed"}}}}).Err(), "shardCollection orph.c")
	db := cl.Database("orph")
	coll := db.Collection("c")
	docs := make([]any, orphanDocs)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "x", Value: int32(i)}, {Key: "g", Value: int32(i % 4)}}
	}
	_, err := coll.InsertMany(ctxT(t), docs)
	must(t, err, "insert through the router")

	// An x owned by sh0 (where the router put it), orphaned on sh1, which
	// has a secondary; and an x owned by sh1, orphaned on sh0.
	on0, on1 := ownedIDs(t, tp, "sh0"), ownedIDs(t, tp, "sh1")
	if len(on0) == 0 || len(on1) == 0 || len(on0)+len(on1) != orphanDocs {
		t.Fatalf("placement: sh0 %v, sh1 %v", on0, on1)
	}
	insertOrphans(t, tp, "sh1", bson.D{{Key: "_id", Value: on0[0]}, {Key: "x", Value: on0[0]}, {Key: "g", Value: int32(9)}, {Key: "orphan", Value: true}},
		bson.D{{Key: "_id", Value: "o1"}, {Key: "x", Value: on0[0]}, {Key: "g", Value: int32(9)}, {Key: "orphan", Value: true}})
	insertOrphans(t, tp, "sh0", bson.D{{Key: "_id", Value: "o0"}, {Key: "x", Value: on1[0]}, {Key: "g", Value: int32(9)}, {Key: "orphan", Value: true}})

	t.Run("find", func(t *testing.T) { checkOrphanFinds(t, coll) })
	t.Run("count and distinct", func(t *testing.T) { checkOrphanCounts(t, db, coll) })
	t.Run("aggregate", func(t *testing.T) { checkOrphanAggregate(t, coll) })
	t.Run("explain", func(t *testing.T) {
		for _, s := range winningShards(t, runExplain(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "g", Value: 1}}}}), "SHARD_MERGE", 2) {
			wp := s.Lookup("winningPlan").Document()
			if wp.Lookup("stage").StringValue() != "SHARDING_FILTER" || wp.Lookup("inputStage", "stage").StringValue() != "COLLSCAN" {
				t.Fatalf("shard plan %s", wp)
			}
		}
	})
	t.Run("secondaryPreferred", func(t *testing.T) {
		waitSecondaryOrphans(t, tp)
		sec := cl.Database("orph", options.Database().SetReadPreference(readpref.SecondaryPreferred())).Collection("c")
		checkOrphanFinds(t, sec)
		checkOrphanAggregate(t, sec)
	})
	t.Run("direct reads see the orphans", func(t *testing.T) {
		for s, want := range map[string]int64{"sh0": 1, "sh1": 2} {
			n, err := tp.shardClient(t, s).Database("orph").Collection("c").CountDocuments(ctxT(t), bson.D{{Key: "orphan", Value: true}})
			if err != nil || n != want {
				t.Fatalf("%s holds %d orphans (%v), want %d", s, n, err, want)
			}
		}
	})
}

// ownedIDs are the _ids of the documents shard holds (before any orphan).
func ownedIDs(t *testing.T, tp *topo, shard string) []int32 {
	t.Helper()
	cur, err := tp.shardClient(t, shard).Database("orph").Collection("c").Find(ctxT(t), bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	must(t, err, "find on %s", shard)
	var rows []struct {
		ID int32 `bson:"_id"`
	}
	must(t, cur.All(ctxT(t), &rows), "read %s", shard)
	ids := make([]int32, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	return ids
}

// insertOrphans writes docs straight to shard's primary (no shardVersion:
// not checked), with majority write concern so its secondary has them.
func insertOrphans(t *testing.T, tp *topo, shard string, docs ...any) {
	t.Helper()
	_, err := tp.shardClient(t, shard).Database("orph").Collection("c").InsertMany(ctxT(t), docs)
	must(t, err, "insert orphans on %s", shard)
}

// waitSecondaryOrphans waits (bounded) until sh1's secondary has its two
// orphans, so a read it serves would see them unfiltered.
func waitSecondaryOrphans(t *testing.T, tp *topo) {
	t.Helper()
	c := tp.shards["sh1"]
	if len(c.Members()) < 2 {
		t.Skip("sh1 has no secondary")
	}
	sec, err := c.Client(c.Members()[1])
	must(t, err, "connect to sh1's secondary")
	deadline := time.Now().Add(15 * time.Second)
	for {
		n, err := sec.Database("orph").Collection("c").CountDocuments(ctxT(t), bson.D{{Key: "orphan", Value: true}})
		if err == nil && n == 2 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("sh1's secondary holds %d orphans (%v)", n, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkOrphanFinds: finds through the router return each owned document
// once and no orphan.
func checkOrphanFinds(t *testing.T, coll *mongo.Collection) {
	t.Helper()
	all := findIDs(t, coll, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	want := make([]any, orphanDocs)
	for i := range want {
		want[i] = int32(i)
	}
	if !slices.Equal(all, want) {
		t.Fatalf("find {} sorted by _id: %v", all)
	}
	if got := findIDs(t, coll, bson.D{}); len(got) != orphanDocs {
		t.Fatalf("find {}: %d documents %v", len(got), got)
	}
	if got := findIDs(t, coll, bson.D{{Key: "orphan", Value: true}}); len(got) != 0 {
		t.Fatalf("find {orphan: true}: %v", got)
	}
	if got := findIDs(t, coll, bson.D{{Key: "g", Value: bson.D{{Key: "$gte", Value: 0}}}}); len(got) != orphanDocs {
		t.Fatalf("find {g >= 0}: %d documents %v", len(got), got)
	}
	top := findIDs(t, coll, bson.D{}, options.Find().SetSort(bson.D{{Key: "g", Value: -1}, {Key: "_id", Value: 1}}).SetLimit(3))
	if len(top) != 3 || fmt.Sprint(top) != fmt.Sprint([]int32{3, 7, 11}) {
		t.Fatalf("find sorted by g desc, limit 3: %v", top)
	}
	if got := findIDs(t, coll, bson.D{}, options.Find().SetLimit(int64(orphanDocs))); len(got) != orphanDocs || slices.ContainsFunc(got, isOrphanID) {
		t.Fatalf("find limit %d: %v", orphanDocs, got)
	}
}

func isOrphanID(v any) bool { _, ok := v.(string); return ok }

// findIDs returns the _ids a find through coll yields, in order.
func findIDs(t *testing.T, coll *mongo.Collection, filter bson.D, opts ...options.Lister[options.FindOptions]) []any {
	t.Helper()
	cur, err := coll.Find(ctxT(t), filter, opts...)
	must(t, err, "find %v", filter)
	var rows []bson.M
	must(t, cur.All(ctxT(t), &rows), "find %v", filter)
	ids := make([]any, len(rows))
	for i, r := range rows {
		ids[i] = r["_id"]
	}
	return ids
}

// checkOrphanCounts: count (its fast path included), countDocuments,
// estimatedDocumentCount and distinct count no orphan.
func checkOrphanCounts(t *testing.T, db *mongo.Database, coll *mongo.Collection) {
	t.Helper()
	for _, q := range []bson.D{{}, {{Key: "orphan", Value: true}}, {{Key: "g", Value: 9}}} {
		var res struct {
			N int64 `bson:"n"`
		}
		must(t, db.RunCommand(ctxT(t), bson.D{{Key: "count", Value: "c"}, {Key: "query", Value: q}}).Decode(&res), "count %v", q)
		want := int64(0)
		if len(q) == 0 {
			want = orphanDocs
		}
		if res.N != want {
			t.Fatalf("count %v: %d, want %d", q, res.N, want)
		}
	}
	if n, err := coll.EstimatedDocumentCount(ctxT(t)); err != nil || n != orphanDocs {
		t.Fatalf("estimatedDocumentCount: %d %v", n, err)
	}
	if n, err := coll.CountDocuments(ctxT(t), bson.D{}); err != nil || n != orphanDocs {
		t.Fatalf("countDocuments: %d %v", n, err)
	}
	var ids []any
	must(t, coll.Distinct(ctxT(t), "_id", bson.D{}).Decode(&ids), "distinct _id")
	if len(ids) != orphanDocs || slices.ContainsFunc(ids, isOrphanID) {
		t.Fatalf("distinct _id: %v", ids)
	}
	var gs []int32
	must(t, coll.Distinct(ctxT(t), "g", bson.D{}).Decode(&gs), "distinct g")
	if fmt.Sprint(gs) != "[0 1 2 3]" {
		t.Fatalf("distinct g: %v", gs)
	}
}

// checkOrphanAggregate: a $group over every document counts each owned
// document once, and $match on the orphans finds none.
func checkOrphanAggregate(t *testing.T, coll *mongo.Collection) {
	t.Helper()
	pipe := mongo.Pipeline{{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$g"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
		{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}}}
	cur, err := coll.Aggregate(ctxT(t), pipe)
	must(t, err, "aggregate $group")
	var groups []struct {
		ID int32 `bson:"_id"`
		N  int32 `bson:"n"`
	}
	must(t, cur.All(ctxT(t), &groups), "aggregate $group")
	if fmt.Sprint(groups) != "[{0 10} {1 10} {2 10} {3 10}]" {
		t.Fatalf("$group by g: %v", groups)
	}
	cur, err = coll.Aggregate(ctxT(t), mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "orphan", Value: true}}}}})
	must(t, err, "aggregate $match")
	var rows []bson.M
	must(t, cur.All(ctxT(t), &rows), "aggregate $match")
	if len(rows) != 0 {
		t.Fatalf("$match {orphan: true}: %v", rows)
	}
	if n, err := coll.CountDocuments(ctxT(t), bson.D{{Key: "g", Value: 9}}); err != nil || n != 0 {
		t.Fatalf("countDocuments {g: 9}: %d %v", n, err)
	}
}
