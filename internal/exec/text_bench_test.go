package exec

import (
	"math/rand/v2"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/iterx"
)

// BenchmarkTextSearch: a one-term $text query sorted by score over 10,000
// documents of 12 random words (about 1 in 20 holds the term), through the
// text index.
func BenchmarkTextSearch(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	e := benchEngine(b, 0)
	col, err := e.CollectionForWrite("t", "c")
	if err != nil {
		b.Fatal(err)
	}
	spec := bson.D{{Key: "key", Value: bson.D{{Key: "body", Value: "text"}}}, {Key: "name", Value: "body_text"}}
	if _, _, err := e.Catalog().CreateIndexes(col, []bson.D{spec}); err != nil {
		b.Fatal(err)
	}
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"}
	var docs []bson.D
	for i := range 10000 {
		body := ""
		for range 12 {
			body += words[r.IntN(len(words))] + "s "
		}
		if i%20 == 0 {
			body += "zulu"
		}
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "body", Value: body}})
	}
	if res := e.Insert("t", "c", docs, true, nil); len(res.Errors) > 0 {
		b.Fatal(res.Errors[0].Err)
	}
	score := bson.D{{Key: "$meta", Value: "textScore"}}
	p := FindParams{Filter: bson.D{{Key: "$text", Value: bson.D{{Key: "$search", Value: "zulu"}}}},
		Projection: bson.D{{Key: "s", Value: score}}, Sort: bson.D{{Key: "s", Value: score}}}
	b.ResetTimer()
	for range b.N {
		it, _, err := e.Find("t", "c", p)
		if err != nil {
			b.Fatal(err)
		}
		rows, err := iterx.Drain(it)
		if err != nil || len(rows) != 500 {
			b.Fatalf("%d rows, %v", len(rows), err)
		}
	}
}
