package exec

import (
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/iterx"
	"github.com/relaydb/relaydb/internal/text"
)

// textVocab mixes stems, inflections, stop words, case and diacritics.
var textVocab = []string{"cake", "cakes", "Cake", "run", "running", "runner", "the", "and", "café", "cafe",
	"fox", "foxes", "dog", "lazy", "brown", "quick", "ale", "bread", "coffee", "shop"}

func randText(r *rand.Rand) string {
	n := 1 + r.IntN(6)
	ws := make([]string, n)
	for i := range ws {
		ws[i] = textVocab[r.IntN(len(textVocab))]
	}
	return strings.Join(ws, " ")
}

func randSearch(r *rand.Rand) string {
	parts := []string{textVocab[r.IntN(len(textVocab))]}
	for range r.IntN(3) {
		w := textVocab[r.IntN(len(textVocab))]
		switch r.IntN(4) {
		case 0:
			w = "-" + w
		case 1:
			w = `"` + w + " " + textVocab[r.IntN(len(textVocab))] + `"`
		}
		parts = append(parts, w)
	}
	return strings.Join(parts, " ")
}

// TestTextPlanMatchesBruteForce: a $text query through the text index
// (TEXT plan: one index scan per term, then the matcher) returns exactly
// the documents text.Query.Match accepts over the whole collection, each
// with the score text.Query.Score gives, for random documents (updated
// and deleted too, so stale entries would show) and random searches.
func TestTextPlanMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 14))
	e := emptyEngine(t)
	col, err := e.CollectionForWrite("t", "c")
	if err != nil {
		t.Fatal(err)
	}
	spec := bson.D{{Key: "key", Value: bson.D{{Key: "title", Value: "text"}, {Key: "body", Value: "text"}}},
		{Key: "name", Value: "tb"}, {Key: "weights", Value: bson.D{{Key: "title", Value: 5}}}}
	if _, _, err := e.Catalog().CreateIndexes(col, []bson.D{spec}); err != nil {
		t.Fatal(err)
	}
	var docs []bson.D
	for i := range 200 {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "title", Value: randText(r)},
			{Key: "body", Value: bson.A{randText(r), randText(r)}}})
	}
	if res := e.Insert("t", "c", docs, true, nil); len(res.Errors) > 0 {
		t.Fatal(res.Errors[0].Err)
	}
	for i := 0; i < 200; i += 7 {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "title", Value: randText(r)}}
		u := UpdateStmt{Q: bson.D{{Key: "_id", Value: int32(i)}}, U: docs[i][1:]}
		if res := e.Update("t", "c", []UpdateStmt{u}, true, nil, nil); len(res.Errors) > 0 {
			t.Fatal(res.Errors[0].Err)
		}
	}
	idx := e.Catalog().Collection("t", "c").Indexes()[1]
	ts, err := idx.TextSpec()
	if err != nil {
		t.Fatal(err)
	}
	en, _ := text.LookupLanguage("english")
	for range 150 {
		search := randSearch(r)
		q, err := text.ParseQuery(bson.D{{Key: "$search", Value: search}}, en)
		if err != nil {
			t.Fatal(err)
		}
		want := map[int32]float64{}
		for _, d := range docs {
			if ok, _ := q.Match(ts, d); ok {
				s, _ := q.Score(ts, d)
				want[d[0].Value.(int32)] = s
			}
		}
		got, plan := textFind(t, e, search)
		if plan != "TEXT" {
			t.Fatalf("%q: plan %s", search, plan)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d documents, want %d (%v vs %v)", search, len(got), len(want), textIDs(got), textIDs(want))
		}
		for id, s := range want {
			if g, ok := got[id]; !ok || math.Abs(g-s) > 1e-9 {
				t.Fatalf("%q: _id %d score %v (found %v), want %v", search, id, g, ok, s)
			}
		}
	}
}

func textFind(t *testing.T, e *Engine, search string) (map[int32]float64, string) {
	t.Helper()
	score := bson.D{{Key: "$meta", Value: "textScore"}}
	it, plan, err := e.Find("t", "c", FindParams{
		Filter:     bson.D{{Key: "$text", Value: bson.D{{Key: "$search", Value: search}}}},
		Projection: bson.D{{Key: "s", Value: score}}, Sort: bson.D{{Key: "s", Value: score}}})
	if err != nil {
		t.Fatalf("%q: %v", search, err)
	}
	rows, err := iterx.Drain(it)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int32]float64{}
	last := math.Inf(1)
	for _, row := range rows {
		id, _ := bsonx.Get(row.Doc, "_id")
		s, _ := bsonx.Get(row.Doc, "s")
		if s.(float64) > last {
			t.Fatalf("%q: not sorted by score", search)
		}
		last = s.(float64)
		out[id.(int32)] = s.(float64)
	}
	return out, plan.Kind
}

func textIDs(m map[int32]float64) []int32 {
	var out []int32
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
