package exec

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
)

// BenchmarkFindHashedPoint is a point lookup of one document by a field
// with a hashed index, against the same lookup by an ascending index
// (BenchmarkFindAscendingPoint): the hash costs one md5 per value.
func BenchmarkFindHashedPoint(b *testing.B) { benchPoint(b, "hashed") }

// BenchmarkFindAscendingPoint: the same lookup with {b: 1}.
func BenchmarkFindAscendingPoint(b *testing.B) { benchPoint(b, int32(1)) }

func benchPoint(b *testing.B, kind any) {
	e := benchEngine(b, 10000)
	col := e.Catalog().Collection("t", "c")
	spec := bson.D{{Key: "key", Value: bson.D{{Key: "b", Value: kind}}}, {Key: "name", Value: "b_x"}}
	if _, _, err := e.Catalog().CreateIndexes(col, []bson.D{spec}); err != nil {
		b.Fatal(err)
	}
	p := FindParams{Filter: bson.D{{Key: "b", Value: int64(4321)}}}
	if plan, _ := choosePlan(col, planInput{filter: p.Filter}); plan.Kind != "IXSCAN" || plan.Index.Name != "b_x" {
		b.Fatalf("plan %s %v", plan.Kind, planIndexName(plan.Index))
	}
	b.ReportAllocs()
	for b.Loop() {
		it, _, err := e.Find("t", "c", p)
		if err != nil {
			b.Fatal(err)
		}
		out, _, err := NewCursor("t.c", it).NextBatch(context.Background(), 0)
		if err != nil || len(out) != 1 {
			b.Fatalf("%d results, %v", len(out), err)
		}
	}
}

func planIndexName(idx *catalog.Index) string {
	if idx == nil {
		return ""
	}
	return idx.Name
}
