package sharding

import (
	"errors"
	"fmt"
	"math/rand"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx/bsonxtest"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestShardedAggregate compares aggregations on a sharded collection
// (split into a shards part and a merge part run by the router) with the
// same aggregations on an unsharded copy, through the router: fixed
// pipelines for each split rule, random ones from a seed, $lookup into
// sharded and unsharded collections, $out, $merge, cursors and the
// router's memory limit.
func TestShardedAggregate(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	db := cl.Database("ag")
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "ag.s"}, {Key: "key", Value: bson.D{{Key: "k", Value: "hashed"}}}}).Err(), "shard ag.s")
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "ag.fs"}, {Key: "key", Value: bson.D{{Key: "b", Value: "hashed"}}}}).Err(), "shard ag.fs")
	s, u := db.Collection("s"), db.Collection("u")
	rng := rand.New(rand.NewSource(1))
	docs := aggDocs(rng, 400)
	for _, c := range []*mongo.Collection{s, u} {
		_, err := c.InsertMany(ctxT(t), docs)
		must(t, err, "insert into %s", c.Name())
	}
	var foreign []any
	for i := 0; i < 30; i++ {
		foreign = append(foreign, bson.D{{Key: "_id", Value: i}, {Key: "b", Value: i % 12}, {Key: "w", Value: fmt.Sprintf("w%d", i)}})
	}
	for _, name := range []string{"fs", "fu"} {
		_, err := db.Collection(name).InsertMany(ctxT(t), foreign)
		must(t, err, "insert into %s", name)
	}
	for _, sh := range []string{"sh0", "sh1"} {
		if n, err := tp.shardClient(t, sh).Database("ag").Collection("s").CountDocuments(ctxT(t), bson.D{}); err != nil || n == 0 {
			t.Fatalf("ag.s on %s: %d documents, %v", sh, n, err)
		}
	}

	t.Run("split rules", func(t *testing.T) {
		for _, p := range fixedPipelines {
			comparePipeline(t, s, u, mustPipe(t, p.json), p.ordered, nil)
		}
	})
	t.Run("random pipelines", func(t *testing.T) {
		nextID := len(docs)
		for seed := int64(1); seed <= 3; seed++ {
			r := rand.New(rand.NewSource(seed))
			for i := 0; i < 40; i++ {
				if i%5 == 4 {
					randomWrite(t, r, s, u, &nextID)
				}
				p, ordered := randomPipeline(r)
				comparePipeline(t, s, u, p, ordered, options.Aggregate().SetBatchSize(int32(1+r.Intn(50))))
			}
		}
	})
	t.Run("malformed", func(t *testing.T) {
		for _, cmd := range []bson.D{
			{{Key: "pipeline", Value: bson.A{}}},
			{{Key: "pipeline", Value: "x"}, {Key: "cursor", Value: bson.D{}}},
			{{Key: "cursor", Value: bson.D{}}},
			{{Key: "pipeline", Value: bson.A{}}, {Key: "cursor", Value: bson.D{{Key: "batchSize", Value: -1}}}},
			{{Key: "pipeline", Value: bson.A{}}, {Key: "cursor", Value: bson.D{{Key: "batchSize", Value: "x"}}}},
			{{Key: "pipeline", Value: bson.A{bson.D{{Key: "$group", Value: bson.D{{Key: "n", Value: 1}}}}}}, {Key: "cursor", Value: bson.D{}}},
			{{Key: "pipeline", Value: bson.A{bson.D{{Key: "$nope", Value: 1}}}}, {Key: "cursor", Value: bson.D{}}},
			{{Key: "pipeline", Value: bson.A{bson.D{{Key: "$out", Value: "x"}}, bson.D{{Key: "$match", Value: bson.D{}}}}}, {Key: "cursor", Value: bson.D{}}},
		} {
			e1 := db.RunCommand(ctxT(t), append(bson.D{{Key: "aggregate", Value: "s"}}, cmd...)).Err()
			e2 := db.RunCommand(ctxT(t), append(bson.D{{Key: "aggregate", Value: "u"}}, cmd...)).Err()
			if errCode(e1) == 0 || errCode(e1) != errCode(e2) {
				t.Fatalf("%v:\n sharded %v\n unsharded %v", cmd, e1, e2)
			}
		}
	})
	t.Run("lookup", func(t *testing.T) { testShardedLookup(t, s, u) })
	t.Run("out", func(t *testing.T) { testShardedOut(t, db, s, u) })
	t.Run("merge", func(t *testing.T) { testShardedMerge(t, db, s, u) })
	t.Run("unsharded source", func(t *testing.T) { testUnshardedSource(t, db, u) })
	t.Run("cursor", func(t *testing.T) { testMergeCursor(t, s, u) })
	t.Run("memory limit", func(t *testing.T) { testRouterMemoryLimit(t, admin, s, u) })
}

func aggDocs(rng *rand.Rand, n int) []any {
	docs := make([]any, n)
	for i := range docs {
		d := bson.D{{Key: "_id", Value: i}, {Key: "k", Value: i % 50}, {Key: "g", Value: rng.Intn(6)}}
		switch rng.Intn(6) {
		case 0:
		case 1:
			d = append(d, bson.E{Key: "x", Value: nil})
		default:
			d = append(d, bson.E{Key: "x", Value: rng.Intn(100)})
		}
		d = append(d, bson.E{Key: "y", Value: float64(rng.Intn(1000)) / 4}, bson.E{Key: "s", Value: fmt.Sprintf("s%d", rng.Intn(9))})
		arr := bson.A{}
		for j := 0; j < rng.Intn(4); j++ {
			arr = append(arr, rng.Intn(12))
		}
		docs[i] = append(d, bson.E{Key: "arr", Value: arr})
	}
	return docs
}

type fixedPipeline struct {
	json    string
	ordered bool // the result order is total and compared
}

var fixedPipelines = []fixedPipeline{
	{`[{"$group":{"_id":"$g","s":{"$sum":"$x"},"c":{"$count":{}},"a":{"$avg":"$x"},"mn":{"$min":"$x"},"mx":{"$max":"$s"}}}]`, false},
	{`[{"$group":{"_id":"$g","p":{"$push":"$x"},"as":{"$addToSet":"$s"},"sp":{"$stdDevPop":"$x"},"ss":{"$stdDevSamp":"$y"},"mo":{"$mergeObjects":{"g":"$g"}}}}]`, false},
	{`[{"$sort":{"y":1,"_id":1}},{"$group":{"_id":"$g","f":{"$first":"$_id"},"l":{"$last":"$_id"}}},{"$sort":{"_id":1}}]`, true},
	{`[{"$match":{"y":{"$gt":20}}},{"$sort":{"y":-1,"_id":1}},{"$skip":3},{"$limit":25},{"$project":{"y":1}}]`, true},
	{`[{"$unwind":"$arr"},{"$group":{"_id":"$arr","n":{"$sum":1}}},{"$sort":{"_id":1}}]`, true},
	{`[{"$unwind":{"path":"$arr","includeArrayIndex":"i","preserveNullAndEmptyArrays":true}},{"$match":{"i":{"$ne":1}}},{"$project":{"arr":1,"i":1}}]`, false},
	{`[{"$sortByCount":"$s"},{"$sort":{"count":-1,"_id":1}}]`, true},
	{`[{"$match":{"g":{"$in":[1,2]}}},{"$count":"total"}]`, true},
	{`[{"$bucket":{"groupBy":"$y","boundaries":[0,50,100,200],"default":"rest","output":{"n":{"$sum":1},"ids":{"$push":"$_id"}}}}]`, true},
	{`[{"$bucket":{"groupBy":"$y","boundaries":[0,100]}}]`, true}, // 40066: no bucket and no default
	{`[{"$bucket":{"groupBy":"$x","boundaries":[10,20,30],"default":-1}}]`, false},
	{`[{"$facet":{"n":[{"$count":"n"}],"byG":[{"$group":{"_id":"$g","t":{"$sum":"$y"}}},{"$sort":{"_id":1}}]}}]`, true},
	{`[{"$limit":30},{"$count":"n"}]`, true},
	{`[{"$skip":390},{"$count":"n"}]`, true},
	{`[{"$sample":{"size":5}},{"$count":"n"}]`, true},
	{`[{"$group":{"_id":"$g","n":{"$sum":1}}},{"$group":{"_id":null,"groups":{"$sum":1},"n":{"$sum":"$n"}}}]`, true},
	{`[{"$project":{"g":1,"x2":{"$multiply":["$x",2]}}},{"$group":{"_id":"$g","t":{"$sum":"$x2"}}},{"$sort":{"t":-1,"_id":1}}]`, true},
	{`[{"$sort":{"_id":-1}},{"$limit":9},{"$group":{"_id":null,"ids":{"$push":"$_id"}}}]`, true},
	{`[{"$group":{"_id":"$g","t":{"$top":{"sortBy":{"y":1},"output":"$y"}}}}]`, false},
	{`[{"$unionWith":"fu"},{"$group":{"_id":null,"n":{"$sum":1}}}]`, true},
	{`[{"$set":{"z":{"$add":["$y",1]}}},{"$unset":"arr"},{"$replaceWith":{"a":"$z","g":"$g"}},{"$group":{"_id":"$g","a":{"$max":"$a"}}}]`, false},
	{`[{"$group":{"_id":"$g","bad":{"$sum":{"$divide":[1,"$x"]}}}}]`, false},
	// A shard fails after its first batch (in a getMore).
	{`[{"$project":{"q":{"$divide":[1,{"$subtract":["$_id",350]}]}}}]`, false},
	{`[{"$sort":{"_id":1}},{"$project":{"q":{"$divide":[1,{"$subtract":["$_id",350]}]}}}]`, true},
}

// comparePipeline runs p on the sharded and the unsharded collection and
// compares results (as multisets unless ordered) or error codes.
func comparePipeline(t *testing.T, s, u *mongo.Collection, p bson.A, ordered bool, opts *options.AggregateOptionsBuilder) {
	t.Helper()
	a, e1 := aggregateAll(t, s, p, opts)
	b, e2 := aggregateAll(t, u, p, opts)
	if (e1 == nil) != (e2 == nil) || errCode(e1) != errCode(e2) {
		t.Fatalf("%s:\n sharded error %v\n unsharded error %v", pipeJSON(p), e1, e2)
	}
	if got, want := bsonxtest.CanonicalDocs(a, ordered), bsonxtest.CanonicalDocs(b, ordered); got != want {
		t.Fatalf("%s:\n sharded   %s\n unsharded %s", pipeJSON(p), got, want)
	}
}

func aggregateAll(t *testing.T, c *mongo.Collection, p bson.A, opts *options.AggregateOptionsBuilder) ([]bson.D, error) {
	t.Helper()
	if opts == nil {
		opts = options.Aggregate()
	}
	cur, err := c.Aggregate(ctxT(t), p, opts)
	if err != nil {
		return nil, err
	}
	var out []bson.D
	err = cur.All(ctxT(t), &out)
	return out, err
}

func errCode(err error) int32 {
	var ce mongo.CommandError
	if errors.As(err, &ce) {
		return ce.Code
	}
	var se mongo.ServerError
	if errors.As(err, &se) {
		return -1
	}
	return 0
}

func mustPipe(t *testing.T, s string) bson.A {
	t.Helper()
	var doc bson.D
	must(t, bson.UnmarshalExtJSON([]byte(`{"p":`+s+`}`), false, &doc), "parse %s", s)
	a, _ := doc[0].Value.(bson.A)
	return a
}

func pipeJSON(p bson.A) string {
	b, err := bson.MarshalExtJSON(bson.D{{Key: "p", Value: p}}, false, false)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
