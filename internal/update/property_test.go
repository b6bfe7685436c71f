package update

import (
	"math/rand"
	"os"
	"strconv"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// TestRandomUpdates applies random updates to random documents and checks
// the package invariants: the input is not mutated, Changed is false
// exactly when the document is unchanged, and the oplog form reproduces
// the result idempotently.
func TestRandomUpdates(t *testing.T) {
	seed := rand.Int63()
	if s, err := strconv.ParseInt(os.Getenv("UPDATE_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	applied := 0
	for i := 0; i < 3000; i++ {
		doc, upd := randDoc(r, 2), randUpdate(r)
		opts := Options{}
		if r.Intn(2) == 0 {
			opts.ArrayFilters = []bson.D{{{Key: "x", Value: bson.D{{Key: "$gte", Value: int32(r.Intn(3))}}}}}
		}
		u, err := Compile(upd, opts)
		if err != nil {
			continue
		}
		before := bsonx.CloneDoc(doc)
		res, err := u.Apply(doc, ApplyContext{MatchedPos: r.Intn(3) - 1, IsInsert: r.Intn(4) == 0, Now: testNow})
		if !identical(doc, before) {
			t.Fatalf("seed %d: input mutated by %s", seed, fmtValue(upd))
		}
		if err != nil {
			continue
		}
		applied++
		if res.Changed == identical(res.Doc, doc) {
			t.Fatalf("seed %d: Changed=%v for %s on %s -> %s", seed, res.Changed, fmtValue(upd), fmtValue(doc), fmtValue(res.Doc))
		}
		if err := idempotenceErr(doc, res); err != nil {
			t.Fatalf("seed %d: update %s on %s: %v", seed, fmtValue(upd), fmtValue(doc), err)
		}
	}
	if applied < 300 {
		t.Fatalf("only %d random updates applied; generator too weak", applied)
	}
}

var (
	randFields = []string{"a", "b", "c", "_id"}
	randPaths  = []string{"a", "b", "c", "a.b", "a.0", "a.1", "a.5", "a.$", "a.$[]", "a.$[x]", "a.$[].b", "a.$[x].b", "b.c.d", "_id"}
	randOps    = []string{"$set", "$unset", "$inc", "$mul", "$min", "$max", "$rename", "$setOnInsert",
		"$currentDate", "$push", "$pull", "$pullAll", "$addToSet", "$pop", "$bit"}
)

func randValue(r *rand.Rand, depth int) any {
	switch n := r.Intn(8); {
	case n == 0:
		return nil
	case n == 1:
		return float64(r.Intn(4)) / 2
	case n == 2:
		return int64(r.Intn(3))
	case n == 3:
		return []string{"x", "y"}[r.Intn(2)]
	case n == 4 && depth > 0:
		return randDoc(r, depth-1)
	case n == 5 && depth > 0:
		a := bson.A{}
		for j := r.Intn(4); j > 0; j-- {
			a = append(a, randValue(r, depth-1))
		}
		return a
	}
	return int32(r.Intn(3))
}

func randDoc(r *rand.Rand, depth int) bson.D {
	d := bson.D{}
	for _, f := range randFields {
		if r.Intn(2) == 0 {
			d = append(d, bson.E{Key: f, Value: randValue(r, depth)})
		}
	}
	return d
}

func randUpdate(r *rand.Rand) bson.D {
	if r.Intn(10) == 0 {
		return randDoc(r, 1)
	}
	u := bson.D{}
	for j := r.Intn(3) + 1; j > 0; j-- {
		op := randOps[r.Intn(len(randOps))]
		u = append(u, bson.E{Key: op, Value: bson.D{{Key: randPaths[r.Intn(len(randPaths))], Value: randArg(r, op)}}})
	}
	return u
}

func randArg(r *rand.Rand, op string) any {
	switch op {
	case "$rename":
		return []string{"z", "b", "q.r"}[r.Intn(3)]
	case "$pop":
		return int32(1 - 2*r.Intn(2))
	case "$pullAll":
		return bson.A{int32(r.Intn(3)), "x"}
	case "$bit":
		return bson.D{{Key: "or", Value: int32(r.Intn(4))}}
	case "$currentDate":
		return true
	case "$push":
		if r.Intn(2) == 0 {
			return bson.D{{Key: "$each", Value: bson.A{int32(2), int32(1)}}, {Key: "$sort", Value: int32(1)}, {Key: "$slice", Value: int32(-2)}}
		}
	case "$pull":
		if r.Intn(2) == 0 {
			return bson.D{{Key: "$gte", Value: int32(1)}}
		}
	}
	return randValue(r, 1)
}
