package sharding

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx/bsonxtest"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// testShardedLookup: $lookup from the sharded collection into an
// unsharded and a sharded one (same documents) gives what the unsharded
// collection's $lookup gives.
func testShardedLookup(t *testing.T, s, u *mongo.Collection) {
	lookups := []string{
		`[{"$match":{"g":{"$in":[1,3]}}},{"$lookup":{"from":"%s","localField":"k","foreignField":"b","as":"f"}},{"$project":{"f":"$f.w"}}]`,
		`[{"$lookup":{"from":"%s","let":{"kk":"$k"},"pipeline":[{"$match":{"$expr":{"$eq":["$b","$$kk"]}}},{"$project":{"_id":0,"w":1}}],"as":"f"}},{"$match":{"f":{"$ne":[]}}},{"$count":"n"}]`,
		`[{"$match":{"k":7}},{"$lookup":{"from":"%s","localField":"k","foreignField":"b","as":"f"}}]`,
		`[{"$group":{"_id":"$k","n":{"$sum":1}}},{"$lookup":{"from":"%s","localField":"_id","foreignField":"b","as":"f"}},{"$sort":{"_id":1}}]`,
		`[{"$match":{"g":0}},{"$unionWith":{"coll":"%s","pipeline":[{"$match":{"b":{"$lt":4}}}]}},{"$project":{"_id":1,"w":1,"g":1}}]`,
	}
	for _, l := range lookups {
		want, err := aggregateAll(t, u, mustPipe(t, strings.ReplaceAll(l, "%s", "fu")), nil)
		must(t, err, "unsharded %s", l)
		if len(want) == 0 {
			t.Fatalf("%s: no result on the unsharded collection", l)
		}
		for _, from := range []string{"fu", "fs"} {
			got, err := aggregateAll(t, s, mustPipe(t, strings.ReplaceAll(l, "%s", from)), nil)
			must(t, err, "sharded, from %s: %s", from, l)
			if a, b := bsonxtest.CanonicalDocs(got, false), bsonxtest.CanonicalDocs(want, false); a != b {
				t.Fatalf("from %s: %s\n sharded   %s\n unsharded %s", from, l, a, b)
			}
		}
	}
}

// testShardedOut: $out from the sharded collection replaces the target
// (keeping its indexes) as $out from the unsharded one does; a failed
// pipeline leaves the target and no temporary collection; $out to a
// sharded collection is refused with 28769.
func testShardedOut(t *testing.T, db *mongo.Database, s, u *mongo.Collection) {
	for _, target := range []string{"o1", "o2"} {
		_, err := db.Collection(target).InsertOne(ctxT(t), bson.D{{Key: "_id", Value: "old"}})
		must(t, err, "seed %s", target)
		_, err = db.Collection(target).Indexes().CreateOne(ctxT(t), mongo.IndexModel{Keys: bson.D{{Key: "g", Value: 1}}})
		must(t, err, "index on %s", target)
	}
	out := func(c *mongo.Collection, target string) error {
		p := mustPipe(t, `[{"$match":{"g":{"$in":[2,4]}}},{"$project":{"g":1,"y":1}},{"$out":"`+target+`"}]`)
		cur, err := c.Database().Collection(c.Name(), options.Collection().SetWriteConcern(writeconcern.Majority())).Aggregate(ctxT(t), p)
		if err == nil {
			err = cur.Close(ctxT(t))
		}
		return err
	}
	must(t, out(s, "o1"), "$out from the sharded collection")
	must(t, out(u, "o2"), "$out from the unsharded collection")
	a, b := allDocs(t, db.Collection("o1")), allDocs(t, db.Collection("o2"))
	if len(a) == 0 || bsonxtest.CanonicalDocs(a, true) != bsonxtest.CanonicalDocs(b, true) {
		t.Fatalf("$out results differ:\n sharded   %d docs %s\n unsharded %d docs", len(a), bsonxtest.CanonicalDocs(a[:min(3, len(a))], true), len(b))
	}
	specs, err := db.Collection("o1").Indexes().ListSpecifications(ctxT(t))
	must(t, err, "listIndexes o1")
	if len(specs) != 2 {
		t.Fatalf("o1 indexes after $out: %+v, want _id_ and g_1", specs)
	}
	// A failing pipeline: the target keeps its documents.
	_, err = aggregateAll(t, s, mustPipe(t, `[{"$project":{"q":{"$divide":[1,{"$subtract":["$g","$g"]}]}}},{"$out":"o1"}]`), nil)
	if err == nil {
		t.Fatal("$out of a failing pipeline succeeded")
	}
	if n := len(allDocs(t, db.Collection("o1"))); n != len(a) {
		t.Fatalf("o1 has %d documents after a failed $out, want %d", n, len(a))
	}
	names, err := db.ListCollectionNames(ctxT(t), bson.D{})
	must(t, err, "listCollections")
	for _, n := range names {
		if strings.HasPrefix(n, "tmp.agg_out") {
			t.Fatalf("temporary collection %s left behind (%v)", n, names)
		}
	}
	_, err = aggregateAll(t, s, mustPipe(t, `[{"$out":"fs"}]`), nil)
	checkCode(t, err, 28769, "$out to a sharded collection")
	if n, err := db.Collection("fs").CountDocuments(ctxT(t), bson.D{}); err != nil || n != 30 {
		t.Fatalf("fs after a refused $out: %d, %v", n, err)
	}
}

// testShardedMerge: $merge from the sharded collection into an unsharded
// and a sharded target gives the unsharded source's result; MongoDB's
// errors for a missing unique index and whenNotMatched: fail.
func testShardedMerge(t *testing.T, db *mongo.Database, s, u *mongo.Collection) {
	admin := db.Client().Database("admin")
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "ag.ms"}, {Key: "key", Value: bson.D{{Key: "_id", Value: "hashed"}}}}).Err(), "shard ag.ms")
	seedDocs := []any{bson.D{{Key: "_id", Value: 1}, {Key: "old", Value: true}}, bson.D{{Key: "_id", Value: 99}, {Key: "old", Value: true}}}
	for _, target := range []string{"m1", "m2", "ms"} {
		_, err := db.Collection(target).InsertMany(ctxT(t), seedDocs)
		must(t, err, "seed %s", target)
	}
	merge := func(c *mongo.Collection, target string) error {
		p := mustPipe(t, `[{"$group":{"_id":"$g","n":{"$sum":1},"t":{"$sum":"$x"}}},{"$merge":{"into":"`+target+`","whenMatched":"merge","whenNotMatched":"insert"}}]`)
		_, err := aggregateAll(t, c, p, nil)
		return err
	}
	must(t, merge(u, "m2"), "$merge from the unsharded collection")
	want := bsonxtest.CanonicalDocs(allDocs(t, db.Collection("m2")), true)
	for _, target := range []string{"m1", "ms"} {
		must(t, merge(s, target), "$merge into %s", target)
		if got := bsonxtest.CanonicalDocs(allDocs(t, db.Collection(target)), true); got != want {
			t.Fatalf("$merge into %s:\n sharded   %s\n unsharded %s", target, got, want)
		}
	}
	// Results with equal _ids, in a total order: each sees the ones before.
	for _, wm := range []string{`"merge"`, `"replace"`, `"keepExisting"`, `[{"$set":{"n":{"$add":[{"$ifNull":["$n",0]},1]},"last":"$$new.last"}}]`} {
		p := `[{"$sort":{"_id":1}},{"$project":{"_id":{"$mod":["$_id",13]},"g":1,"last":"$_id"}},{"$merge":{"into":"%s","whenMatched":` + wm + `}}]`
		_, err := aggregateAll(t, u, mustPipe(t, strings.ReplaceAll(p, "%s", "m2")), nil)
		must(t, err, "$merge %s from the unsharded collection", wm)
		want := bsonxtest.CanonicalDocs(allDocs(t, db.Collection("m2")), true)
		for _, target := range []string{"m1", "ms"} {
			_, err := aggregateAll(t, s, mustPipe(t, strings.ReplaceAll(p, "%s", target)), nil)
			must(t, err, "$merge %s into %s", wm, target)
			if got := bsonxtest.CanonicalDocs(allDocs(t, db.Collection(target)), true); got != want {
				t.Fatalf("$merge %s into %s:\n sharded   %s\n unsharded %s", wm, target, got, want)
			}
		}
	}
	_, e1 := aggregateAll(t, s, mustPipe(t, `[{"$merge":{"into":"m1","on":"g"}}]`), nil)
	_, e2 := aggregateAll(t, u, mustPipe(t, `[{"$merge":{"into":"m2","on":"g"}}]`), nil)
	checkCode(t, e1, 51190, "$merge on a field without a unique index (sharded: checked by the router, as mongos)")
	checkCode(t, e2, 51183, "$merge on a field without a unique index (unsharded)")
	p := `[{"$group":{"_id":{"$add":["$g",1000]}}},{"$merge":{"into":"%s","whenNotMatched":"fail"}}]`
	_, e1 = aggregateAll(t, s, mustPipe(t, strings.ReplaceAll(p, "%s", "m1")), nil)
	_, e2 = aggregateAll(t, u, mustPipe(t, strings.ReplaceAll(p, "%s", "m2")), nil)
	if errCode(e1) == 0 || errCode(e1) != errCode(e2) {
		t.Fatalf("whenNotMatched fail: sharded %v, unsharded %v", e1, e2)
	}
}

// testMergeCursor: a merge part's result comes in batches with getMore,
// and a cursor closed early is fine.
func testMergeCursor(t *testing.T, s, u *mongo.Collection) {
	p := mustPipe(t, `[{"$unwind":"$arr"},{"$group":{"_id":{"i":"$_id","a":"$arr"},"n":{"$sum":1}}},{"$sort":{"_id":1}}]`)
	for _, bs := range []int32{1, 7, 100, 1000} {
		comparePipeline(t, s, u, p, true, options.Aggregate().SetBatchSize(bs))
	}
	cur, err := s.Aggregate(ctxT(t), p, options.Aggregate().SetBatchSize(3))
	must(t, err, "aggregate")
	for i := 0; i < 5 && cur.Next(ctxT(t)); i++ {
	}
	must(t, cur.Err(), "first documents")
	must(t, cur.Close(ctxT(t)), "close early")
}

// testRouterMemoryLimit: the router's blocking merge stages are bounded
// by agg's memory parameters, set on the router: past them 292 without
// allowDiskUse, the unsharded result with it (spilled to disk).
func testRouterMemoryLimit(t *testing.T, admin *mongo.Database, s, u *mongo.Collection) {
	for _, tc := range []struct{ param, pipeline string }{
		{"internalDocumentSourceGroupMaxMemoryBytes", `[{"$group":{"_id":"$_id","d":{"$push":"$$ROOT"}}},{"$sort":{"_id":1}}]`},
		{"internalQueryMaxBlockingSortMemoryUsageBytes", `[{"$group":{"_id":"$_id","y":{"$max":"$y"},"s":{"$first":"$s"}}},{"$sort":{"y":1,"_id":1}}]`},
	} {
		var res struct {
			Was bson.M `bson:"was"`
		}
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "setParameter", Value: 1}, {Key: tc.param, Value: int64(20000)}}).Decode(&res), "setParameter %s", tc.param)
		was := res.Was
		p := mustPipe(t, tc.pipeline)
		_, err := aggregateAll(t, s, p, options.Aggregate().SetAllowDiskUse(false))
		checkCode(t, err, 292, "over "+tc.param+" without allowDiskUse")
		comparePipeline(t, s, u, p, true, options.Aggregate().SetAllowDiskUse(true))
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "setParameter", Value: 1}, {Key: tc.param, Value: was[tc.param]}}).Err(), "restore %s", tc.param)
	}
	err := admin.RunCommand(ctxT(t), bson.D{{Key: "setParameter", Value: 1}, {Key: "noSuchParameter", Value: 1}}).Err()
	checkCode(t, err, 72, "an unknown parameter")
}

func allDocs(t *testing.T, c *mongo.Collection) []bson.D {
	t.Helper()
	cur, err := c.Find(ctxT(t), bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	must(t, err, "find %s", c.Name())
	var out []bson.D
	must(t, cur.All(ctxT(t), &out), "find %s", c.Name())
	return out
}

// testUnshardedSource: an aggregate on an unsharded collection whose
// $lookup or $unionWith reads a sharded one sees all of it (the router
// runs that part), as it sees the unsharded copy; $merge into a sharded
// collection writes through the router; $out to one is refused.
func testUnshardedSource(t *testing.T, db *mongo.Database, u *mongo.Collection) {
	for _, l := range []string{
		`[{"$match":{"g":{"$in":[1,3]}}},{"$lookup":{"from":"%s","localField":"k","foreignField":"b","as":"f"}},{"$project":{"f":"$f.w"}}]`,
		`[{"$match":{"g":0}},{"$unionWith":{"coll":"%s","pipeline":[{"$match":{"b":{"$lt":6}}}]}},{"$project":{"_id":1,"w":1,"g":1}}]`,
		`[{"$facet":{"n":[{"$lookup":{"from":"%s","localField":"k","foreignField":"b","as":"f"}},{"$unwind":"$f"},{"$count":"n"}]}}]`,
	} {
		want, err := aggregateAll(t, u, mustPipe(t, strings.ReplaceAll(l, "%s", "fu")), nil)
		must(t, err, "from fu: %s", l)
		got, err := aggregateAll(t, u, mustPipe(t, strings.ReplaceAll(l, "%s", "fs")), nil)
		must(t, err, "from fs: %s", l)
		if a, b := bsonxtest.CanonicalDocs(got, false), bsonxtest.CanonicalDocs(want, false); a != b || len(want) == 0 {
			t.Fatalf("%s:\n from the sharded   %s\n from the unsharded %s", l, a, b)
		}
	}
	p := `[{"$group":{"_id":"$g","n":{"$sum":1}}},{"$merge":{"into":"%s"}}]`
	for _, target := range []string{"um", "ums"} {
		if target == "ums" {
			must(t, db.Client().Database("admin").RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "ag.ums"},
				{Key: "key", Value: bson.D{{Key: "_id", Value: "hashed"}}}}).Err(), "shard ag.ums")
		}
		_, err := aggregateAll(t, u, mustPipe(t, strings.ReplaceAll(p, "%s", target)), nil)
		must(t, err, "$merge into %s", target)
	}
	if a, b := bsonxtest.CanonicalDocs(allDocs(t, db.Collection("ums")), true), bsonxtest.CanonicalDocs(allDocs(t, db.Collection("um")), true); a != b || a == "" {
		t.Fatalf("$merge from an unsharded collection:\n into a sharded one   %s\n into an unsharded one %s", a, b)
	}
	_, err := aggregateAll(t, u, mustPipe(t, `[{"$out":"fs"}]`), nil)
	checkCode(t, err, 28769, "$out from an unsharded collection to a sharded one")
}
