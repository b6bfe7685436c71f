package router

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg"
)

// BenchmarkGroupMerge compares a $group over 100k documents run whole
// with the router's share of the split: its merge part over the partial
// groups two shards send.
func BenchmarkGroupMerge(b *testing.B) {
	docs := make([]bson.D, 100_000)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "g", Value: int32(i % 1000)}, {Key: "x", Value: int32(i)}}
	}
	p := bson.A{bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$g"},
		{Key: "a", Value: bson.D{{Key: "$avg", Value: "$x"}}}, {Key: "n", Value: bson.D{{Key: "$sum", Value: int32(1)}}},
		{Key: "m", Value: bson.D{{Key: "$max", Value: "$x"}}}}}}}
	plan := splitPipeline(p)
	run := func(b *testing.B, p bson.A, in []bson.D) int { return len(runPipeForBench(b, p, in)) }
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			run(b, p, docs)
		}
	})
	shard0 := runPipeForBench(b, plan.shards, docs[:50_000])
	shard1 := runPipeForBench(b, plan.shards, docs[50_000:])
	partials := append(append([]bson.D{}, shard0...), shard1...)
	b.Run("router merge part", func(b *testing.B) {
		for b.Loop() {
			if n := run(b, plan.merge, partials); n != 1000 {
				b.Fatalf("%d groups", n)
			}
		}
	})
}

func runPipeForBench(b *testing.B, p bson.A, docs []bson.D) []bson.D {
	pl, err := agg.Compile(p, agg.Env{DB: "db"})
	if err != nil {
		b.Fatal(err)
	}
	out, err := agg.Drain(pl.Run(agg.Slice(docs)))
	if err != nil {
		b.Fatal(err)
	}
	return out
}
