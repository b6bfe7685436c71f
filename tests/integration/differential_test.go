package integration

import (
	"math/rand/v2"
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

const (
	diffDocs    = 400 // documents in each collection
	diffQueries = 150 // random queries compared
)

// testIndexDifferential loads the same random documents into an indexed and
// an unindexed collection and requires identical _id sets for random
// queries. Index bugs (bounds, multikey, type brackets) show up as diffs.
func testIndexDifferential(t *testing.T, c *mongo.Client) {
	r := newRand(seed(t))
	plain := freshColl(t, c, "diff")
	indexed := plain.Database().Collection(plain.Name() + "_ix")
	_ = indexed.Drop(tctx(t, opTimeout))
	for _, keys := range []bson.D{{{Key: "a", Value: 1}}, {{Key: "b", Value: -1}},
		{{Key: "b", Value: 1}, {Key: "e", Value: 1}}, {{Key: "c.d", Value: 1}}} {
		createIndex(t, indexed, keys, nil)
	}
	docs := make([]any, diffDocs)
	for i := range docs {
		docs[i] = randDoc(r, int32(i))
	}
	for _, coll := range []*mongo.Collection{plain, indexed} {
		if _, err := coll.InsertMany(tctx(t, opTimeout), docs); err != nil {
			t.Fatalf("insert into %s: %v", coll.Name(), err)
		}
	}
	fails := 0
	for i := 0; i < diffQueries && fails < 5; i++ {
		f := randFilter(r)
		want, got := idSet(t, plain, f, nil), idSet(t, indexed, f, nil)
		if !slices.Equal(want, got) {
			fails++
			t.Errorf("query %d %s: unindexed %d ids %v, indexed %d ids %v", i, asJSON(f), len(want), want, len(got), got)
		}
	}
}

// randValue draws from a small domain of mixed types, so that equal values,
// type brackets and arrays are all common.
func randValue(r *rand.Rand, depth int) any {
	switch r.IntN(10) {
	case 0:
		return nil
	case 1:
		return float64(r.IntN(6)) + 0.5
	case 2:
		return "s" + itoa(r.IntN(4))
	case 3:
		if depth > 0 {
			return nil
		}
		n := r.IntN(4)
		a := bson.A{}
		for range n {
			a = append(a, randValue(r, depth+1))
		}
		return a
	case 4:
		return r.IntN(2) == 0
	case 5:
		return int64(r.IntN(6))
	default:
		return int32(r.IntN(6))
	}
}

func randDoc(r *rand.Rand, id int32) bson.D {
	d := bson.D{{Key: "_id", Value: id}}
	if r.IntN(8) != 0 {
		d = append(d, bson.E{Key: "a", Value: randValue(r, 0)})
	}
	if r.IntN(8) != 0 {
		d = append(d, bson.E{Key: "b", Value: randValue(r, 0)})
	}
	if r.IntN(4) != 0 { // e is never an array: it shares a compound index with b
		d = append(d, bson.E{Key: "e", Value: int32(r.IntN(3))})
	}
	switch r.IntN(4) {
	case 0:
		d = append(d, bson.E{Key: "c", Value: bson.D{{Key: "d", Value: randValue(r, 0)}}})
	case 1:
		d = append(d, bson.E{Key: "c", Value: bson.A{bson.D{{Key: "d", Value: randValue(r, 1)}}, bson.D{{Key: "d", Value: randValue(r, 1)}}}})
	}
	return d
}

func randPred(r *rand.Rand) bson.E {
	path := []string{"a", "b", "c.d", "e"}[r.IntN(4)]
	v := randValue(r, 1)
	var cond any
	switch r.IntN(9) {
	case 0:
		cond = v
	case 1, 2:
		op := []string{"$gt", "$gte", "$lt", "$lte"}[r.IntN(4)]
		cond = bson.D{{Key: op, Value: v}}
	case 3:
		lo, hi := randValue(r, 1), randValue(r, 1)
		cond = bson.D{{Key: "$gte", Value: lo}, {Key: "$lt", Value: hi}}
	case 4:
		cond = bson.D{{Key: "$in", Value: bson.A{v, randValue(r, 1), randValue(r, 1)}}}
	case 5:
		cond = bson.D{{Key: "$exists", Value: r.IntN(2) == 0}}
	case 6:
		cond = bson.D{{Key: "$ne", Value: v}}
	case 7:
		cond = bson.D{{Key: "$nin", Value: bson.A{v, randValue(r, 1)}}}
	default:
		cond = bson.D{{Key: "$elemMatch", Value: bson.D{{Key: "$gte", Value: v}}}}
	}
	return bson.E{Key: path, Value: cond}
}

func randFilter(r *rand.Rand) bson.D {
	switch r.IntN(5) {
	case 0:
		return bson.D{randPred(r), randPred(r)}
	case 1:
		return bson.D{{Key: "$or", Value: bson.A{bson.D{randPred(r)}, bson.D{randPred(r)}}}}
	default:
		return bson.D{randPred(r)}
	}
}
