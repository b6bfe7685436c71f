package exec

import (
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/collation"
)

// collTestEngine has t.c with a simple index on s and a strength-2
// English index on t, both over the same strings.
func collTestEngine(t *testing.T) *Engine {
	t.Helper()
	words := []string{"b", "A", "a", "B", "c"}
	docs := make([]bson.D, len(words))
	for i, w := range words {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "s", Value: w}, {Key: "t", Value: w}, {Key: "n", Value: int32(i)}, {Key: "h", Value: w}, {Key: "p", Value: w}}
	}
	e := testEngine(t, docs)
	col := e.cat.Collection("t", "c")
	specs := []bson.D{
		{{Key: "key", Value: bson.D{{Key: "s", Value: 1}}}, {Key: "name", Value: "s_1"}},
		{{Key: "key", Value: bson.D{{Key: "t", Value: 1}}}, {Key: "name", Value: "t_ci"}, {Key: "collation", Value: en2}},
		{{Key: "key", Value: bson.D{{Key: "n", Value: 1}}}, {Key: "name", Value: "n_ci"}, {Key: "collation", Value: en2}},
		{{Key: "key", Value: bson.D{{Key: "h", Value: "hashed"}}}, {Key: "name", Value: "h_ci"}, {Key: "collation", Value: en2}},
		{{Key: "key", Value: bson.D{{Key: "p", Value: 1}}}, {Key: "name", Value: "p_partial"},
			{Key: "partialFilterExpression", Value: bson.D{{Key: "p", Value: "a"}}}},
	}
	if _, _, err := e.cat.CreateIndexes(col, specs); err != nil {
		t.Fatal(err)
	}
	return e
}

var en2 = bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: int32(2)}}

func en2Collation(t *testing.T) Collation {
	s, err := collation.Parse(en2)
	if err != nil {
		t.Fatal(err)
	}
	return Collation{Spec: s, Given: true}
}

// TestPlannerCollation: a string predicate uses an index only under the
// index's collation; a non-string predicate uses any.
func TestPlannerCollation(t *testing.T) {
	e := collTestEngine(t)
	ci := en2Collation(t)
	cases := []struct {
		filter bson.D
		co     Collation
		index  string // "" for a collection scan
		ids    []int32
	}{
		{bson.D{{Key: "t", Value: "a"}}, ci, "t_ci", []int32{1, 2}},
		{bson.D{{Key: "t", Value: "a"}}, Collation{}, "", []int32{2}},
		{bson.D{{Key: "s", Value: "a"}}, Collation{}, "s_1", []int32{2}},
		{bson.D{{Key: "s", Value: "a"}}, ci, "", []int32{1, 2}},
		{bson.D{{Key: "t", Value: bson.D{{Key: "$gte", Value: "B"}}}}, ci, "t_ci", []int32{0, 3, 4}},
		{bson.D{{Key: "n", Value: int32(3)}}, Collation{}, "n_ci", []int32{3}}, // no strings: any collation
		{bson.D{{Key: "s", Value: bson.D{{Key: "$in", Value: bson.A{"C", "b"}}}}}, ci, "", []int32{0, 3, 4}},
		{bson.D{{Key: "h", Value: "B"}}, ci, "h_ci", []int32{0, 3}},   // a collated hashed index
		{bson.D{{Key: "h", Value: "B"}}, Collation{}, "", []int32{3}}, // not under another collation
		{bson.D{{Key: "p", Value: "a"}}, Collation{}, "p_partial", []int32{2}},
		{bson.D{{Key: "p", Value: "a"}}, ci, "", []int32{1, 2}}, // the partial index holds only the binary "a"
	}
	for _, tc := range cases {
		it, plan, err := e.Find("t", "c", FindParams{Filter: tc.filter, Collation: tc.co})
		if err != nil {
			t.Fatal(err)
		}
		var ids []int32
		for _, d := range drainDocs(t, it) {
			id, _ := bsonx.Get(d, "_id")
			ids = append(ids, id.(int32))
		}
		slices.Sort(ids)
		name := ""
		if plan.Index != nil {
			name = plan.Index.Name
		}
		if name != tc.index || !slices.Equal(ids, tc.ids) {
			t.Errorf("%v (collated %v): index %q ids %v, want %q %v", tc.filter, tc.co.Spec != nil, name, ids, tc.index, tc.ids)
		}
	}
}

func TestSortAndDistinctUnderCollation(t *testing.T) {
	e := collTestEngine(t)
	ci := en2Collation(t)
	it, plan, err := e.Find("t", "c", FindParams{Sort: bson.D{{Key: "t", Value: 1}, {Key: "_id", Value: 1}}, Collation: ci})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range drainDocs(t, it) {
		v, _ := bsonx.Get(d, "t")
		got = append(got, v.(string))
	}
	if want := []string{"A", "a", "b", "B", "c"}; !slices.Equal(got, want) {
		t.Errorf("sort under en/2 (plan %v): %q, want %q", plan.Kind, got, want)
	}
	vals, err := e.DistinctAt(nil, nil, "t", "c", "s", nil, ci)
	if err != nil || len(vals) != 3 {
		t.Errorf("distinct under en/2: %v, %v; want 3 values", vals, err)
	}
}

func drainDocs(t *testing.T, it Iterator) []bson.D {
	t.Helper()
	defer it.Close()
	var out []bson.D
	for r, ok := it.Next(); ok; r, ok = it.Next() {
		d, err := r.decoded()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
