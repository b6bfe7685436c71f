package exec

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/storage"
)

// benchEngine returns an engine over an in-memory catalog whose t.c holds
// n documents {_id, a, b, s} with an index on {a: 1}.
func benchEngine(b *testing.B, n int) *Engine {
	b.Helper()
	cat, err := catalog.Open(catalog.Options{Storage: storage.Options{InMemory: true}, TTLInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cat.Close() })
	e := New(cat, nil)
	col, err := e.CollectionForWrite("t", "c")
	if err != nil {
		b.Fatal(err)
	}
	spec := bson.D{{Key: "key", Value: bson.D{{Key: "a", Value: 1}}}, {Key: "name", Value: "a_1"}}
	if _, _, err := cat.CreateIndexes(col, []bson.D{spec}); err != nil {
		b.Fatal(err)
	}
	docs := make([]bson.D, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "a", Value: int32(i % 100)}, {Key: "b", Value: int64(i)}, {Key: "s", Value: "some string value"}}
	}
	if res := e.Insert("t", "c", docs, true, nil); len(res.Errors) > 0 {
		b.Fatal(res.Errors[0].Err)
	}
	return e
}

// benchFind runs p over t.c and reads every result through a cursor, as
// find and getMore do; want is the number of results.
func benchFind(b *testing.B, p FindParams, want int) {
	e := benchEngine(b, 10000)
	b.ReportAllocs()
	for b.Loop() {
		it, _, err := e.Find("t", "c", p)
		if err != nil {
			b.Fatal(err)
		}
		out, _, err := NewCursor("t.c", it).NextBatch(context.Background(), 0)
		if err != nil || len(out) != want {
			b.Fatalf("%d results, %v", len(out), err)
		}
	}
}

// BenchmarkFindCollScan: COLLSCAN -> filter -> project.
func BenchmarkFindCollScan(b *testing.B) {
	benchFind(b, FindParams{
		Filter:     bson.D{{Key: "b", Value: bson.D{{Key: "$gte", Value: int64(5000)}}}},
		Projection: bson.D{{Key: "b", Value: 1}},
	}, 5000)
}

// BenchmarkFindIndexScan: IXSCAN over two intervals -> fetch -> filter.
func BenchmarkFindIndexScan(b *testing.B) {
	benchFind(b, FindParams{Filter: bson.D{{Key: "a", Value: bson.D{{Key: "$in", Value: bson.A{int32(3), int32(7)}}}}}}, 200)
}

// BenchmarkAggregateMatchProject: a scan feeding a streaming pipeline.
func BenchmarkAggregateMatchProject(b *testing.B) {
	e := benchEngine(b, 10000)
	pipeline := bson.A{
		bson.D{{Key: "$match", Value: bson.D{{Key: "b", Value: bson.D{{Key: "$lt", Value: int64(5000)}}}}}},
		bson.D{{Key: "$project", Value: bson.D{{Key: "b", Value: 1}, {Key: "x", Value: bson.D{{Key: "$add", Value: bson.A{"$a", int32(1)}}}}}}},
	}
	b.ReportAllocs()
	for b.Loop() {
		it, err := e.Aggregate("t", "c", AggregateParams{Pipeline: pipeline})
		if err != nil {
			b.Fatal(err)
		}
		out, _, err := NewCursor("t.c", it).NextBatch(context.Background(), 0)
		if err != nil || len(out) != 5000 {
			b.Fatalf("%d results, %v", len(out), err)
		}
	}
}
