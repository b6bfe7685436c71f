package exec

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/storage"
)

// testEngine returns an engine over an in-memory catalog with collection
// t.c indexed on {a:1}, {b:-1} and {a:1, c:1}, and the same documents in
// t.plain without secondary indexes.
func testEngine(t *testing.T, docs []bson.D) *Engine {
	t.Helper()
	cat, err := catalog.Open(catalog.Options{Storage: storage.Options{InMemory: true}, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	e := New(cat, nil)
	col, err := e.CollectionForWrite("t", "c")
	if err != nil {
		t.Fatal(err)
	}
	specs := []bson.D{
		{{Key: "key", Value: bson.D{{Key: "a", Value: 1}}}, {Key: "name", Value: "a_1"}},
		{{Key: "key", Value: bson.D{{Key: "b", Value: -1}}}, {Key: "name", Value: "b_-1"}},
		{{Key: "key", Value: bson.D{{Key: "a", Value: 1}, {Key: "c", Value: 1}}}, {Key: "name", Value: "a_1_c_1"}},
	}
	if _, _, err := cat.CreateIndexes(col, specs); err != nil {
		t.Fatal(err)
	}
	for _, coll := range []string{"c", "plain"} {
		if res := e.Insert("t", coll, docs, true, nil); len(res.Errors) > 0 {
			t.Fatal(res.Errors[0].Err)
		}
	}
	return e
}

func TestChoosePlan(t *testing.T) {
	e := testEngine(t, []bson.D{{{Key: "_id", Value: 1}, {Key: "a", Value: 1}}})
	col := e.Catalog().Collection("t", "c")
	cases := []struct {
		filter, sort bson.D
		hint         any
		kind, index  string
		reverse      bool
	}{
		{filter: bson.D{{Key: "_id", Value: 5}}, kind: "IDHACK"},
		{filter: bson.D{{Key: "a", Value: 5}}, kind: "IXSCAN", index: "a_1"},
		{filter: bson.D{{Key: "a", Value: 5}, {Key: "c", Value: 2}}, kind: "IXSCAN", index: "a_1_c_1"},
		{filter: bson.D{{Key: "b", Value: bson.D{{Key: "$gt", Value: 3}}}}, kind: "IXSCAN", index: "b_-1"},
		{filter: bson.D{{Key: "a", Value: bson.D{{Key: "$in", Value: bson.A{1, 2}}}}}, kind: "IXSCAN", index: "a_1"},
		{filter: bson.D{{Key: "z", Value: 1}}, kind: "COLLSCAN"},
		{filter: bson.D{{Key: "a", Value: bson.A{1, 2}}}, kind: "COLLSCAN"},
		{filter: bson.D{{Key: "a", Value: bson.Regex{Pattern: "x"}}}, kind: "COLLSCAN"},
		{sort: bson.D{{Key: "b", Value: 1}}, kind: "IXSCAN", index: "b_-1", reverse: true},
		{sort: bson.D{{Key: "a", Value: -1}}, kind: "IXSCAN", index: "a_1", reverse: true},
		{filter: bson.D{{Key: "z", Value: 1}}, hint: "a_1", kind: "IXSCAN", index: "a_1"},
		{hint: bson.D{{Key: "$natural", Value: -1}}, kind: "COLLSCAN", reverse: true},
		{filter: bson.D{{Key: "$and", Value: bson.A{bson.D{{Key: "a", Value: 3}}}}}, kind: "IXSCAN", index: "a_1"},
	}
	for i, tc := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			p, err := choosePlan(col, planInput{filter: tc.filter, sort: tc.sort, hint: tc.hint})
			if err != nil {
				t.Fatal(err)
			}
			if p.Kind != tc.kind || p.Reverse != tc.reverse {
				t.Fatalf("plan %s reverse=%v, want %s reverse=%v", p.Kind, p.Reverse, tc.kind, tc.reverse)
			}
			if tc.index != "" && p.Index.Name != tc.index {
				t.Fatalf("index %s, want %s", p.Index.Name, tc.index)
			}
		})
	}
	if _, err := choosePlan(col, planInput{hint: "nope"}); err == nil {
		t.Fatal("hint of a missing index: want error")
	}
}

// TestIndexScanMatchesCollScan runs random filters against an indexed and
// an unindexed copy of the same data: index bounds must never change a
// result, only how it is found.
func TestIndexScanMatchesCollScan(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	vals := []any{nil, int32(1), int64(2), 2.5, 3.0, "x", "y", bson.A{int32(1), "x"}, bson.A{int32(5), int32(1)}, bson.D{{Key: "k", Value: 1}}, true, int32(-4)}
	var docs []bson.D
	for i := 0; i < 200; i++ {
		d := bson.D{{Key: "_id", Value: i}}
		for _, f := range []string{"a", "b", "c"} {
			if rng.IntN(5) > 0 {
				v := vals[rng.IntN(len(vals))]
				if _, isArr := v.(bson.A); isArr && f == "c" {
					v = "c" // {a:1, c:1} may not index two arrays
				}
				d = append(d, bson.E{Key: f, Value: v})
			}
		}
		docs = append(docs, d)
	}
	e := testEngine(t, docs)
	ops := []string{"$eq", "$gt", "$gte", "$lt", "$lte", "$in"}
	for i := 0; i < 300; i++ {
		var filter bson.D
		for _, f := range []string{"a", "b", "c"} {
			if rng.IntN(2) == 0 {
				continue
			}
			op, v := ops[rng.IntN(len(ops))], vals[rng.IntN(len(vals))]
			if op == "$in" {
				v = bson.A{v, vals[rng.IntN(len(vals))]}
			}
			filter = append(filter, bson.E{Key: f, Value: bson.D{{Key: op, Value: v}}})
		}
		want, got := ids(t, e, "plain", filter), ids(t, e, "c", filter)
		if fmt.Sprint(want) != fmt.Sprint(got) {
			t.Fatalf("filter %v: indexed %v, unindexed %v", filter, got, want)
		}
	}
}

func ids(t *testing.T, e *Engine, coll string, filter bson.D) []int {
	t.Helper()
	it, _, err := e.Find("t", coll, FindParams{Filter: filter})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var out []int
	for {
		r, ok := it.Next()
		if !ok {
			if err := it.Err(); err != nil {
				t.Fatal(err)
			}
			break
		}
		d, _ := r.decoded()
		switch id := d[0].Value.(type) {
		case int32:
			out = append(out, int(id))
		case int64:
			out = append(out, int(id))
		}
	}
	sort.Ints(out)
	return out
}
