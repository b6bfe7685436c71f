package router

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx/bsonxtest"

	"github.com/relaydb/relaydb/internal/agg"
)

// TestSplitEquivalence runs each pipeline whole over a seeded collection
// and split: the shards part over a random partition into 1-3 shards,
// the merge part over their outputs merged as the router merges them.
// The results must agree (as multisets unless the pipeline orders them
// totally; arrays compared as multisets, doubles to 9 digits).
func TestSplitEquivalence(t *testing.T) {
	for _, tc := range []struct {
		pipeline string
		ordered  bool
	}{
		{`[{"$group":{"_id":"$g","s":{"$sum":"$x"},"c":{"$count":{}},"a":{"$avg":"$x"},"mn":{"$min":"$x"},"mx":{"$max":"$x"},
			"p":{"$push":"$x"},"as":{"$addToSet":"$s"},"sp":{"$stdDevPop":"$x"},"ss":{"$stdDevSamp":"$y"},"mo":{"$mergeObjects":{"k":"$g"}}}}]`, false},
		{`[{"$sort":{"x":1,"_id":1}},{"$group":{"_id":"$g","f":{"$first":"$_id"},"l":{"$last":"$_id"}}}]`, false},
		{`[{"$match":{"y":{"$gt":10}}},{"$sort":{"y":-1,"_id":1}},{"$skip":3},{"$limit":10}]`, true},
		{`[{"$unwind":"$arr"},{"$group":{"_id":"$arr","n":{"$sum":1},"ids":{"$addToSet":"$_id"}}},{"$sort":{"_id":1}}]`, true},
		{`[{"$sortByCount":"$g"}]`, false},
		{`[{"$match":{"g":{"$in":[1,2]}}},{"$count":"n"}]`, true},
		{`[{"$bucket":{"groupBy":"$y","boundaries":[0,10,50,100],"default":"other","output":{"n":{"$sum":1},"a":{"$avg":"$x"}}}}]`, true},
		{`[{"$facet":{"a":[{"$count":"n"}],"b":[{"$group":{"_id":"$g","t":{"$sum":"$y"}}}]}}]`, true},
		{`[{"$limit":5},{"$count":"n"}]`, true},
		{`[{"$project":{"g":1,"x2":{"$multiply":["$x",2]}}},{"$group":{"_id":"$g","t":{"$sum":"$x2"}}}]`, false},
		{`[{"$group":{"_id":{"g":"$g","odd":{"$mod":["$_id",2]}},"n":{"$sum":1},"m":{"$max":"$s"}}}]`, false},
		{`[{"$sort":{"_id":-1}},{"$limit":7},{"$group":{"_id":null,"v":{"$push":"$_id"}}}]`, true},
		{`[{"$group":{"_id":"$g","a":{"$avg":"$missing"},"f":{"$first":"$missing"},"mn":{"$min":"$missing"}}}]`, false},
		{`[{"$group":{"_id":"$g","n":{"$sum":1}}},{"$group":{"_id":null,"n":{"$sum":"$n"},"k":{"$sum":1}}}]`, true},
		{`[{"$skip":10},{"$count":"n"}]`, true},
		{`[]`, false},
	} {
		p := pipe(t, tc.pipeline)
		for seed := uint64(1); seed <= 4; seed++ {
			rng := rand.New(rand.NewPCG(seed, 7))
			docs := equivDocs(rng, 150)
			want := bsonxtest.CanonicalDocs(runPipe(t, p, docs), tc.ordered)
			plan := splitPipeline(p)
			parts := make([][]bson.D, 1+rng.IntN(3))
			for _, d := range docs {
				i := rng.IntN(len(parts))
				parts[i] = append(parts[i], d)
			}
			var outs [][]bson.D
			for _, part := range parts {
				outs = append(outs, runPipe(t, plan.shards, part))
			}
			got := bsonxtest.CanonicalDocs(runPipe(t, plan.merge, mergeStreams(outs, plan.sortSpec)), tc.ordered)
			if got != want {
				t.Errorf("%s, seed %d, %d shards:\n split %s\n whole %s", tc.pipeline, seed, len(parts), got, want)
			}
		}
	}
}

func equivDocs(rng *rand.Rand, n int) []bson.D {
	docs := make([]bson.D, n)
	for i := range docs {
		d := bson.D{{Key: "_id", Value: int32(i)}, {Key: "g", Value: int32(rng.IntN(5))}}
		switch rng.IntN(6) {
		case 0:
		case 1:
			d = append(d, bson.E{Key: "x", Value: nil})
		default:
			d = append(d, bson.E{Key: "x", Value: int32(rng.IntN(100))})
		}
		d = append(d, bson.E{Key: "y", Value: float64(rng.IntN(1000)) / 10})
		d = append(d, bson.E{Key: "s", Value: fmt.Sprintf("s%d", rng.IntN(8))})
		arr := bson.A{}
		for j := 0; j < rng.IntN(4); j++ {
			arr = append(arr, int32(rng.IntN(6)))
		}
		docs[i] = append(d, bson.E{Key: "arr", Value: arr})
	}
	return docs
}

func runPipe(t *testing.T, p bson.A, docs []bson.D) []bson.D {
	t.Helper()
	pl, err := agg.Compile(p, agg.Env{DB: "db"})
	if err != nil {
		t.Fatalf("compile %s: %v", js(p), err)
	}
	out, err := agg.Drain(pl.Run(agg.Slice(docs)))
	if err != nil {
		t.Fatalf("run %s: %v", js(p), err)
	}
	return out
}

// mergeStreams merges the shards' outputs as shardStream does.
func mergeStreams(outs [][]bson.D, sortSpec bson.D) []bson.D {
	var all []bson.D
	outs = slices.DeleteFunc(outs, func(o []bson.D) bool { return len(o) == 0 })
	for len(outs) > 0 {
		best := 0
		for i := range outs {
			if sortSpec != nil && compareBySort(outs[i][0], outs[best][0], sortSpec) < 0 {
				best = i
			}
		}
		all = append(all, outs[best][0])
		if outs[best] = outs[best][1:]; len(outs[best]) == 0 {
			outs = slices.Delete(outs, best, best+1)
		}
	}
	return all
}
