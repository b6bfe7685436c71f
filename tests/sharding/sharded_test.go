package sharding

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/tests/harness"
)

// TestShardedCollections is stage 2's router side end to end: sharding
// collections, then CRUD through the router on a hashed key presplit over
// both shards and on a range key whose data is one chunk.
func TestShardedCollections(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	coll := cl.Database("hs").Collection("c")

	t.Run("shardCollection", func(t *testing.T) {
		var res bson.M
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "hs.c"}, {Key: "key", Value: bson.D{{Key: "x", Value: "hashed"}}}}).Decode(&res), "shardCollection")
		if res["collectionsharded"] != "hs.c" {
			t.Fatalf("shardCollection = %v", res)
		}
		// Again with the same key: ok; with another: AlreadyInitialized.
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "hs.c"}, {Key: "key", Value: bson.D{{Key: "x", Value: "hashed"}}}}).Err(), "shardCollection again")
		checkCode(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "hs.c"}, {Key: "key", Value: bson.D{{Key: "y", Value: 1}}}}).Err(), 23, "another key")
		checkCode(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "hs.u"}, {Key: "key", Value: bson.D{{Key: "x", Value: "hashed"}}}, {Key: "unique", Value: true}}).Err(), 72, "unique hashed")
		checkCode(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "hs.bad"}, {Key: "key", Value: bson.D{{Key: "x", Value: -1}}}}).Err(), 2, "bad key")
		checkCode(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "nodot"}, {Key: "key", Value: bson.D{{Key: "x", Value: 1}}}}).Err(), 73, "bad namespace")
		// 2 chunks per shard, on both.
		var chunks []bson.M
		cur, err := cl.Database("config").Collection("chunks").Find(ctxT(t), bson.D{{Key: "uuid", Value: res["collectionUUID"]}})
		must(t, err, "config.chunks")
		must(t, cur.All(ctxT(t), &chunks), "config.chunks")
		per := map[any]int{}
		for _, c := range chunks {
			per[c["shard"]]++
		}
		if len(chunks) != 4 || per["sh0"] != 2 || per["sh1"] != 2 {
			t.Fatalf("chunks per shard %v (%d chunks)", per, len(chunks))
		}
		// The key's hashed index exists on both shards.
		for _, s := range []string{"sh0", "sh1"} {
			specs, err := tp.shardClient(t, s).Database("hs").Collection("c").Indexes().ListSpecifications(ctxT(t))
			must(t, err, "listIndexes on %s", s)
			if !slices.ContainsFunc(specs, func(sp mongo.IndexSpecification) bool { return sp.Name == "x_hashed" }) {
				t.Errorf("%s has no x_hashed index: %+v", s, specs)
			}
		}
	})

	const n = 200
	t.Run("insert", func(t *testing.T) {
		docs := make([]any, n)
		for i := range docs {
			docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "x", Value: i}, {Key: "g", Value: i % 7}}
		}
		res, err := coll.InsertMany(ctxT(t), docs)
		must(t, err, "insertMany")
		if len(res.InsertedIDs) != n {
			t.Fatalf("inserted %d", len(res.InsertedIDs))
		}
		total := int64(0)
		for _, s := range []string{"sh0", "sh1"} {
			c, err := tp.shardClient(t, s).Database("hs").Collection("c").CountDocuments(ctxT(t), bson.D{})
			must(t, err, "count on %s", s)
			if c == 0 {
				t.Errorf("no documents on %s", s)
			}
			total += c
		}
		if total != n {
			t.Fatalf("%d documents on the shards, want %d", total, n)
		}
		// Unordered, with a duplicate: the client's index in the write error.
		_, err = coll.InsertMany(ctxT(t), []any{
			bson.D{{Key: "_id", Value: 1000}, {Key: "x", Value: 1000}},
			bson.D{{Key: "_id", Value: 5}, {Key: "x", Value: 5}},
			bson.D{{Key: "_id", Value: 1001}, {Key: "x", Value: 1001}},
		}, options.InsertMany().SetOrdered(false))
		var bwe mongo.BulkWriteException
		if !errors.As(err, &bwe) || len(bwe.WriteErrors) != 1 || bwe.WriteErrors[0].Index != 1 || bwe.WriteErrors[0].Code != 11000 {
			t.Fatalf("unordered insert with a duplicate: %v", err)
		}
		_, err = coll.DeleteMany(ctxT(t), bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: 1000}}}})
		must(t, err, "deleteMany")
	})

	t.Run("count", func(t *testing.T) {
		c, err := coll.CountDocuments(ctxT(t), bson.D{})
		must(t, err, "countDocuments")
		e, err := coll.EstimatedDocumentCount(ctxT(t))
		must(t, err, "estimatedDocumentCount")
		if c != n || e != n {
			t.Fatalf("countDocuments %d, estimated %d, want %d", c, e, n)
		}
		var cnt struct {
			N int `bson:"n"`
		}
		must(t, cl.Database("hs").RunCommand(ctxT(t), bson.D{{Key: "count", Value: "c"}, {Key: "skip", Value: 10}, {Key: "limit", Value: 500}}).Decode(&cnt), "count skip/limit")
		if cnt.N != n-10 {
			t.Fatalf("count skip 10 = %d", cnt.N)
		}
	})

	t.Run("find", func(t *testing.T) {
		var doc bson.M
		must(t, coll.FindOne(ctxT(t), bson.D{{Key: "x", Value: 17}}).Decode(&doc), "findOne x=17")
		if doc["_id"] != int32(17) {
			t.Fatalf("findOne x=17 = %v", doc)
		}
		// Sorted across shards with skip and limit.
		got := findInts(t, coll, bson.D{{Key: "g", Value: bson.D{{Key: "$lt", Value: 5}}}},
			options.Find().SetSort(bson.D{{Key: "x", Value: -1}}).SetSkip(10).SetLimit(25).SetBatchSize(4), "x")
		var want []int
		for i := n - 1; i >= 0; i-- {
			if i%7 < 5 {
				want = append(want, i)
			}
		}
		want = want[10:35]
		if !slices.Equal(got, want) {
			t.Fatalf("sorted find = %v\nwant %v", got, want)
		}
		// Small batches, no sort: every document once.
		ids := findInts(t, coll, bson.D{}, options.Find().SetBatchSize(7), "_id")
		sort.Ints(ids)
		if len(ids) != n || ids[0] != 0 || ids[n-1] != n-1 || len(slices.Compact(slices.Clone(ids))) != n {
			t.Fatalf("batchSize 7: %d documents", len(ids))
		}
		// Sort on a field the projection leaves out: merged, then removed.
		cur, err := coll.Find(ctxT(t), bson.D{}, options.Find().SetSort(bson.D{{Key: "g", Value: 1}, {Key: "x", Value: -1}}).
			SetProjection(bson.D{{Key: "g", Value: 1}, {Key: "_id", Value: 0}}).SetLimit(20))
		must(t, err, "find with projection")
		var rows []bson.M
		must(t, cur.All(ctxT(t), &rows), "find with projection")
		if len(rows) != 20 {
			t.Fatalf("projected find: %d rows", len(rows))
		}
		for _, row := range rows {
			if len(row) != 1 || row["g"] != int32(0) {
				t.Fatalf("projected row %v, want only g: 0", row)
			}
		}
		// A cursor closed early is killed on the shards.
		cur, err = coll.Find(ctxT(t), bson.D{}, options.Find().SetBatchSize(3))
		must(t, err, "find")
		if !cur.Next(ctxT(t)) {
			t.Fatal("no first document")
		}
		must(t, cur.Close(ctxT(t)), "close cursor")
	})

	t.Run("distinct and aggregate", func(t *testing.T) {
		var vals []int
		must(t, coll.Distinct(ctxT(t), "g", bson.D{}).Decode(&vals), "distinct")
		if !slices.Equal(vals, []int{0, 1, 2, 3, 4, 5, 6}) {
			t.Fatalf("distinct g = %v", vals)
		}
		cur, err := coll.Aggregate(ctxT(t), mongo.Pipeline{
			{{Key: "$match", Value: bson.D{{Key: "g", Value: bson.D{{Key: "$gte", Value: 2}}}}}},
			{{Key: "$sort", Value: bson.D{{Key: "x", Value: 1}}}},
			{{Key: "$skip", Value: 1}},
			{{Key: "$limit", Value: 5}},
		})
		must(t, err, "aggregate sort")
		var rows []struct {
			X int `bson:"x"`
		}
		must(t, cur.All(ctxT(t), &rows), "aggregate sort")
		if fmt.Sprint(rows) != "[{3} {4} {5} {6} {9}]" {
			t.Fatalf("aggregate $sort/$skip/$limit = %v", rows)
		}
		cur, err = coll.Aggregate(ctxT(t), mongo.Pipeline{
			{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$g"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}, {Key: "max", Value: bson.D{{Key: "$max", Value: "$x"}}}}}},
			{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
		})
		must(t, err, "aggregate group")
		var groups []struct {
			ID  int `bson:"_id"`
			N   int `bson:"n"`
			Max int `bson:"max"`
		}
		must(t, cur.All(ctxT(t), &groups), "aggregate group")
		if len(groups) != 7 || groups[0].N != 29 || groups[0].Max != 196 || groups[6].N != 28 || groups[6].Max != 195 {
			t.Fatalf("groups = %+v", groups)
		}
		cur, err = coll.Aggregate(ctxT(t), mongo.Pipeline{
			{{Key: "$match", Value: bson.D{{Key: "g", Value: bson.D{{Key: "$in", Value: bson.A{1, 2}}}}}}},
			{{Key: "$count", Value: "total"}},
		})
		must(t, err, "aggregate $count")
		var counted []bson.M
		must(t, cur.All(ctxT(t), &counted), "aggregate $count")
		if len(counted) != 1 || counted[0]["total"] != int32(58) || len(counted[0]) != 1 {
			t.Fatalf("$count = %v", counted)
		}
		// $lookup runs on the router (agg_split_test.go has the rest).
		cur, err = coll.Aggregate(ctxT(t), mongo.Pipeline{{{Key: "$lookup", Value: bson.D{{Key: "from", Value: "x"}, {Key: "as", Value: "y"}, {Key: "localField", Value: "a"}, {Key: "foreignField", Value: "b"}}}}})
		must(t, err, "$lookup across shards")
		var looked []bson.M
		must(t, cur.All(ctxT(t), &looked), "$lookup across shards")
		if len(looked) < n || len(looked[0]["y"].(bson.A)) != 0 {
			t.Fatalf("$lookup of a missing collection: %d documents %v", len(looked), looked[:min(1, len(looked))])
		}
	})

	t.Run("update and delete", func(t *testing.T) {
		res, err := coll.UpdateOne(ctxT(t), bson.D{{Key: "x", Value: 5}}, bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: 1}}}})
		must(t, err, "updateOne by key")
		if res.MatchedCount != 1 || res.ModifiedCount != 1 {
			t.Fatalf("updateOne by key: %+v", res)
		}
		res, err = coll.UpdateOne(ctxT(t), bson.D{{Key: "_id", Value: 6}}, bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: 1}}}})
		must(t, err, "updateOne by _id")
		if res.MatchedCount != 1 || res.ModifiedCount != 1 {
			t.Fatalf("updateOne by _id: %+v", res)
		}
		res, err = coll.UpdateMany(ctxT(t), bson.D{{Key: "g", Value: 3}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "y", Value: 10}}}})
		must(t, err, "updateMany")
		if res.MatchedCount != 29 || res.ModifiedCount != 29 {
			t.Fatalf("updateMany: %+v", res)
		}
		// A retryable write may change the shard key (the document moves
		// when its new key is another shard's: shardkeychange_test.go);
		// changed and changed back here.
		for _, kv := range [][2]int{{7, 8}, {8, 7}} {
			res, err = coll.UpdateOne(ctxT(t), bson.D{{Key: "_id", Value: 7}, {Key: "x", Value: kv[0]}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: kv[1]}}}})
			must(t, err, "changing the shard key")
			if res.ModifiedCount != 1 {
				t.Fatalf("changing the shard key from %d to %d: %+v", kv[0], kv[1], res)
			}
		}
		res, err = coll.UpdateOne(ctxT(t), bson.D{{Key: "x", Value: 500}}, bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: 2}}}}, options.UpdateOne().SetUpsert(true))
		must(t, err, "upsert by key")
		if res.UpsertedCount != 1 {
			t.Fatalf("upsert: %+v", res)
		}
		// A multi upsert needs the whole key (a single one without it is a
		// write without shard key: withoutshardkey_test.go).
		_, err = coll.UpdateMany(ctxT(t), bson.D{{Key: "g", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: 2}}}}, options.UpdateMany().SetUpsert(true))
		checkWriteCode(t, err, 61, "multi upsert without the key")
		d, err := coll.DeleteOne(ctxT(t), bson.D{{Key: "x", Value: 8}})
		must(t, err, "deleteOne")
		if d.DeletedCount != 1 {
			t.Fatalf("deleteOne: %+v", d)
		}
		d, err = coll.DeleteMany(ctxT(t), bson.D{{Key: "g", Value: 0}})
		must(t, err, "deleteMany")
		if d.DeletedCount != 29 {
			t.Fatalf("deleteMany: %+v", d)
		}
		var got bson.M
		must(t, coll.FindOneAndUpdate(ctxT(t), bson.D{{Key: "x", Value: 9}}, bson.D{{Key: "$set", Value: bson.D{{Key: "z", Value: 1}}}},
			options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&got), "findOneAndUpdate")
		if got["z"] != int32(1) {
			t.Fatalf("findOneAndUpdate = %v", got)
		}
		c, err := coll.CountDocuments(ctxT(t), bson.D{})
		must(t, err, "count")
		if c != n+1-1-29 {
			t.Fatalf("count after deletes = %d", c)
		}
	})

	t.Run("range key with data", func(t *testing.T) {
		rc := cl.Database("hs").Collection("r")
		docs := make([]any, 50)
		for i := range docs {
			docs[i] = bson.D{{Key: "x", Value: i}}
		}
		_, err := rc.InsertMany(ctxT(t), docs)
		must(t, err, "insert")
		checkCode(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "hs.r"}, {Key: "key", Value: bson.D{{Key: "x", Value: 1}}}}).Err(), 72, "no index")
		_, err = rc.Indexes().CreateOne(ctxT(t), mongo.IndexModel{Keys: bson.D{{Key: "x", Value: 1}}})
		must(t, err, "createIndex")
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "hs.r"}, {Key: "key", Value: bson.D{{Key: "x", Value: 1}}}}).Err(), "shardCollection hs.r")
		_, err = rc.InsertOne(ctxT(t), bson.D{{Key: "x", Value: 50}})
		must(t, err, "insert after sharding")
		got := findInts(t, rc, bson.D{{Key: "x", Value: bson.D{{Key: "$gte", Value: 45}}}}, options.Find().SetSort(bson.D{{Key: "x", Value: 1}}), "x")
		if !slices.Equal(got, []int{45, 46, 47, 48, 49, 50}) {
			t.Fatalf("range find = %v", got)
		}
		c, err := rc.CountDocuments(ctxT(t), bson.D{})
		must(t, err, "count")
		if c != 51 {
			t.Fatalf("count = %d", c)
		}
	})

	t.Run("differential", func(t *testing.T) {
		for seed := int64(1); seed <= 4; seed++ {
			testDifferential(t, cl, admin, seed)
		}
	})
	t.Run("stale router", func(t *testing.T) { testStaleRouter(t, tp, cl, admin) })

	t.Run("rename and dropDatabase", func(t *testing.T) {
		checkCode(t, admin.RunCommand(ctxT(t), bson.D{{Key: "renameCollection", Value: "hs.c"}, {Key: "to", Value: "hs.c2"}}).Err(), 20, "rename a sharded collection")
		must(t, cl.Database("diff1").Drop(ctxT(t)), "dropDatabase diff1")
		n, err := cl.Database("config").Collection("collections").CountDocuments(ctxT(t), bson.D{{Key: "_id", Value: "diff1.s"}})
		must(t, err, "config.collections")
		if n != 0 {
			t.Fatalf("diff1.s still in config.collections after dropDatabase")
		}
		for _, s := range []string{"sh0", "sh1"} {
			names, err := tp.shardClient(t, s).Database("diff1").ListCollectionNames(ctxT(t), bson.D{})
			must(t, err, "listCollections on %s", s)
			if len(names) != 0 {
				t.Fatalf("%s still has diff1 collections %v", s, names)
			}
		}
		// The name can be used again, unsharded.
		_, err = cl.Database("diff1").Collection("s").InsertOne(ctxT(t), bson.D{{Key: "k", Value: 1}})
		must(t, err, "insert into diff1.s again")
		if n, err := cl.Database("diff1").Collection("s").CountDocuments(ctxT(t), bson.D{}); err != nil || n != 1 {
			t.Fatalf("diff1.s after recreation: %d, %v", n, err)
		}
	})
}

// testStaleRouter: a second router that cached st.v as unsharded learns
// from the shard (StaleConfig for UNSHARDED) that the first router
// sharded it, and after the first router drops it and shards it again on
// another key, learns the new generation the same way.
func testStaleRouter(t *testing.T, tp *topo, cl *mongo.Client, admin *mongo.Database) {
	r2 := harness.StartRouter(t, "cfg/"+tp.cfg.Members()[0].Host)
	cl2, err := mongo.Connect(options.Client().ApplyURI(r2.URI()))
	must(t, err, "connect to the second router")
	t.Cleanup(func() { _ = cl2.Disconnect(context.Background()) })
	v2 := cl2.Database("st").Collection("v")
	_, err = cl2.Database("st").Collection("other").InsertOne(ctxT(t), bson.D{{Key: "a", Value: 1}})
	must(t, err, "create st")
	if n, err := v2.CountDocuments(ctxT(t), bson.D{}); err != nil || n != 0 {
		t.Fatalf("count st.v before sharding: %d, %v", n, err)
	}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "st.v"}, {Key: "key", Value: bson.D{{Key: "x", Value: "hashed"}}}}).Err(), "shard st.v")
	insertN := func(field string) {
		docs := make([]any, 60)
		for i := range docs {
			docs[i] = bson.D{{Key: field, Value: i}}
		}
		_, err := v2.InsertMany(ctxT(t), docs)
		must(t, err, "insert through the stale router")
		for _, s := range []string{"sh0", "sh1"} {
			n, err := tp.shardClient(t, s).Database("st").Collection("v").CountDocuments(ctxT(t), bson.D{})
			must(t, err, "count on %s", s)
			if n == 0 {
				t.Fatalf("no documents of st.v on %s: the stale router did not route by the new table", s)
			}
		}
		var doc bson.M
		must(t, v2.FindOne(ctxT(t), bson.D{{Key: field, Value: 33}}).Decode(&doc), "findOne %s: 33", field)
	}
	insertN("x")
	_, err = cl.Database("st").Collection("v").Indexes().CreateOne(ctxT(t), mongo.IndexModel{Keys: bson.D{{Key: "q", Value: 1}}})
	must(t, err, "createIndex on a sharded collection")
	must(t, cl.Database("st").Collection("v").Drop(ctxT(t)), "drop st.v through the first router")
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "st.v"}, {Key: "key", Value: bson.D{{Key: "y", Value: "hashed"}}}}).Err(), "shard st.v again")
	// A read first: the stale router scatters with the old generation's
	// versions, gets StaleConfig and targets by the new key.
	_, err = cl.Database("st").Collection("v").InsertOne(ctxT(t), bson.D{{Key: "y", Value: 1000}})
	must(t, err, "insert through the first router")
	var doc bson.M
	must(t, v2.FindOne(ctxT(t), bson.D{{Key: "y", Value: 1000}}).Decode(&doc), "find through the stale router")
	insertN("y")
	if n, err := v2.CountDocuments(ctxT(t), bson.D{}); err != nil || n != 61 {
		t.Fatalf("count st.v after resharding: %d, %v", n, err)
	}
}

// testDifferential runs the same seeded random operations on a sharded
// collection and an unsharded one through the router and compares every
// result.
func testDifferential(t *testing.T, cl *mongo.Client, admin *mongo.Database, seed int64) {
	sdb, udb := fmt.Sprintf("diff%d", seed), fmt.Sprintf("diffu%d", seed)
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: sdb + ".s"}, {Key: "key", Value: bson.D{{Key: "k", Value: "hashed"}}}}).Err(), "shard %s.s", sdb)
	s := cl.Database(sdb).Collection("s")
	u := cl.Database(udb).Collection("u")
	rng := rand.New(rand.NewSource(seed))
	nextID := 0
	for op := 0; op < 200; op++ {
		k := rng.Intn(40)
		var rs, ru any
		var es, eu error
		kind := rng.Intn(11)
		switch kind {
		case 0: // insert a few
			var docs []any
			for j := 0; j < 1+rng.Intn(5); j++ {
				docs = append(docs, bson.D{{Key: "_id", Value: nextID}, {Key: "k", Value: nextID % 40}, {Key: "v", Value: rng.Intn(100)}})
				nextID++
			}
			_, es = s.InsertMany(ctxT(t), docs)
			_, eu = u.InsertMany(ctxT(t), docs)
		case 1: // sorted find with skip/limit
			opts := options.Find().SetSort(bson.D{{Key: "v", Value: 1}, {Key: "_id", Value: 1}}).SetSkip(int64(rng.Intn(5))).SetLimit(int64(rng.Intn(20))).SetBatchSize(int32(1 + rng.Intn(6)))
			filter := bson.D{{Key: "v", Value: bson.D{{Key: "$gte", Value: rng.Intn(100)}}}}
			rs, ru = findInts(t, s, filter, opts, "_id"), findInts(t, u, filter, opts, "_id")
		case 2: // update many or one by key
			upd := bson.D{{Key: "$inc", Value: bson.D{{Key: "v", Value: 1}}}}
			if rng.Intn(2) == 0 {
				a, e1 := s.UpdateMany(ctxT(t), bson.D{{Key: "v", Value: bson.D{{Key: "$lt", Value: k}}}}, upd)
				b, e2 := u.UpdateMany(ctxT(t), bson.D{{Key: "v", Value: bson.D{{Key: "$lt", Value: k}}}}, upd)
				if a != nil && b != nil {
					rs, ru = []int64{a.MatchedCount, a.ModifiedCount}, []int64{b.MatchedCount, b.ModifiedCount}
				}
				es, eu = e1, e2
			} else {
				a, e1 := s.UpdateOne(ctxT(t), bson.D{{Key: "k", Value: k}, {Key: "_id", Value: bson.D{{Key: "$gte", Value: 0}}}}, upd)
				b, e2 := u.UpdateOne(ctxT(t), bson.D{{Key: "k", Value: k}, {Key: "_id", Value: bson.D{{Key: "$gte", Value: 0}}}}, upd)
				if a != nil && b != nil {
					rs, ru = a.MatchedCount, b.MatchedCount
				}
				es, eu = e1, e2
			}
		case 3: // delete by key or by _id
			var f bson.D
			if rng.Intn(2) == 0 {
				f = bson.D{{Key: "k", Value: k}}
			} else {
				f = bson.D{{Key: "_id", Value: rng.Intn(nextID + 1)}}
			}
			a, e1 := s.DeleteOne(ctxT(t), f)
			b, e2 := u.DeleteOne(ctxT(t), f)
			if a != nil && b != nil {
				rs, ru = a.DeletedCount, b.DeletedCount
			}
			es, eu = e1, e2
		case 4: // counts
			f := bson.D{{Key: "k", Value: bson.D{{Key: "$in", Value: bson.A{k, k + 1, k + 2}}}}}
			a, e1 := s.CountDocuments(ctxT(t), f)
			b, e2 := u.CountDocuments(ctxT(t), f)
			rs, ru, es, eu = a, b, e1, e2
		case 5: // distinct
			var a, b []int
			es = s.Distinct(ctxT(t), "v", bson.D{}).Decode(&a)
			eu = u.Distinct(ctxT(t), "v", bson.D{}).Decode(&b)
			rs, ru = a, b
		case 6: // insert with a duplicate _id (k follows _id: _id is unique
			// per shard only, so a duplicate with another key could land on
			// another shard, in MongoDB too)
			dup := rng.Intn(nextID + 1)
			docs := []any{
				bson.D{{Key: "_id", Value: nextID}, {Key: "k", Value: nextID % 40}, {Key: "v", Value: rng.Intn(100)}},
				bson.D{{Key: "_id", Value: dup}, {Key: "k", Value: dup % 40}, {Key: "v", Value: 1}},
				bson.D{{Key: "_id", Value: nextID + 1}, {Key: "k", Value: (nextID + 1) % 40}, {Key: "v", Value: rng.Intn(100)}},
			}
			nextID += 2
			ordered := rng.Intn(2) == 0
			_, e1 := s.InsertMany(ctxT(t), docs, options.InsertMany().SetOrdered(ordered))
			_, e2 := u.InsertMany(ctxT(t), docs, options.InsertMany().SetOrdered(ordered))
			var wa, wb []int
			var ba, bb mongo.BulkWriteException
			if errors.As(e1, &ba) {
				for _, we := range ba.WriteErrors {
					wa = append(wa, we.Index, we.Code)
				}
			}
			if errors.As(e2, &bb) {
				for _, we := range bb.WriteErrors {
					wb = append(wb, we.Index, we.Code)
				}
			}
			rs, ru = wa, wb
		case 7: // sorted find with a projection leaving out the sort field
			opts := options.Find().SetSort(bson.D{{Key: "v", Value: -1}, {Key: "_id", Value: 1}}).
				SetProjection(bson.D{{Key: "k", Value: 1}}).SetLimit(int64(1 + rng.Intn(30))).SetBatchSize(3)
			rs, ru = findInts(t, s, bson.D{}, opts, "_id"), findInts(t, u, bson.D{}, opts, "_id")
		case 8: // aggregate: group by k
			pipe := mongo.Pipeline{
				{{Key: "$match", Value: bson.D{{Key: "v", Value: bson.D{{Key: "$gt", Value: rng.Intn(50)}}}}}},
				{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$k"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}, {Key: "m", Value: bson.D{{Key: "$max", Value: "$v"}}}}}},
				{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
			}
			var a, b []bson.D
			c1, e1 := s.Aggregate(ctxT(t), pipe)
			if e1 == nil {
				e1 = c1.All(ctxT(t), &a)
			}
			c2, e2 := u.Aggregate(ctxT(t), pipe)
			if e2 == nil {
				e2 = c2.All(ctxT(t), &b)
			}
			rs, ru, es, eu = a, b, e1, e2
		case 10: // a bulk of updates and deletes: keyed ones go in pieces per shard
			var models []mongo.WriteModel
			for j := 0; j < 2+rng.Intn(8); j++ {
				kk := rng.Intn(40)
				switch rng.Intn(5) {
				case 0:
					models = append(models, mongo.NewUpdateOneModel().SetFilter(bson.D{{Key: "k", Value: kk}}).SetUpdate(bson.D{{Key: "$inc", Value: bson.D{{Key: "v", Value: 3}}}}))
				case 1:
					models = append(models, mongo.NewUpdateManyModel().SetFilter(bson.D{{Key: "k", Value: kk}}).SetUpdate(bson.D{{Key: "$set", Value: bson.D{{Key: "w", Value: j}}}}))
				case 2:
					models = append(models, mongo.NewDeleteOneModel().SetFilter(bson.D{{Key: "k", Value: kk}}))
				case 3:
					models = append(models, mongo.NewUpdateOneModel().SetFilter(bson.D{{Key: "k", Value: kk}, {Key: "_id", Value: -1 - op*20 - j}}).
						SetUpdate(bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: 50}}}}).SetUpsert(true))
				default:
					models = append(models, mongo.NewUpdateManyModel().SetFilter(bson.D{{Key: "v", Value: bson.D{{Key: "$gt", Value: 90}}}}).SetUpdate(bson.D{{Key: "$inc", Value: bson.D{{Key: "v", Value: -5}}}}))
				}
			}
			ordered := rng.Intn(2) == 0
			a, e1 := s.BulkWrite(ctxT(t), models, options.BulkWrite().SetOrdered(ordered))
			b, e2 := u.BulkWrite(ctxT(t), models, options.BulkWrite().SetOrdered(ordered))
			if a != nil && b != nil {
				rs = []int64{a.MatchedCount, a.ModifiedCount, a.DeletedCount, a.UpsertedCount}
				ru = []int64{b.MatchedCount, b.ModifiedCount, b.DeletedCount, b.UpsertedCount}
				if len(a.UpsertedIDs) != len(b.UpsertedIDs) {
					rs, ru = a.UpsertedIDs, b.UpsertedIDs
				}
				for idx, id := range a.UpsertedIDs {
					if fmt.Sprint(b.UpsertedIDs[idx]) != fmt.Sprint(id) {
						rs, ru = a.UpsertedIDs, b.UpsertedIDs
					}
				}
			}
			es, eu = e1, e2
		case 9: // single-document update by _id only (tried shard by shard)
			id := rng.Intn(nextID + 1)
			upd := bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: rng.Intn(100)}}}}
			a, e1 := s.UpdateOne(ctxT(t), bson.D{{Key: "_id", Value: id}}, upd)
			b, e2 := u.UpdateOne(ctxT(t), bson.D{{Key: "_id", Value: id}}, upd)
			if a != nil && b != nil {
				rs, ru = []int64{a.MatchedCount, a.ModifiedCount}, []int64{b.MatchedCount, b.ModifiedCount}
			}
			es, eu = e1, e2
		}
		if (es == nil) != (eu == nil) || fmt.Sprint(rs) != fmt.Sprint(ru) {
			t.Fatalf("op %d (kind %d): sharded %v, %v; unsharded %v, %v", op, kind, rs, es, ru, eu)
		}
	}
	a := findInts(t, s, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}), "v")
	b := findInts(t, u, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}), "v")
	if !slices.Equal(a, b) {
		t.Fatalf("final contents differ:\n%v\n%v", a, b)
	}
}

// findInts runs a find and returns one int field of every document.
func findInts(t *testing.T, coll *mongo.Collection, filter bson.D, opts *options.FindOptionsBuilder, field string) []int {
	t.Helper()
	cur, err := coll.Find(ctxT(t), filter, opts)
	must(t, err, "find %v", filter)
	var out []int
	for cur.Next(ctxT(t)) {
		v, err := cur.Current.LookupErr(field)
		must(t, err, "field %s", field)
		out = append(out, int(v.AsInt64()))
	}
	must(t, cur.Err(), "cursor")
	must(t, cur.Close(ctxT(t)), "close")
	return out
}

func checkWriteCode(t *testing.T, err error, code int, what string) {
	t.Helper()
	var we mongo.WriteException
	if errors.As(err, &we) && len(we.WriteErrors) == 1 && we.WriteErrors[0].Code == code {
		return
	}
	var ce mongo.CommandError
	if errors.As(err, &ce) && int(ce.Code) == code {
		return
	}
	t.Fatalf("%s: %v, want code %d", what, err, code)
}
