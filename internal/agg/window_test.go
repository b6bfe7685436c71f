package agg

import (
	"testing"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// TestWindowPartitionBounded: a partition larger than the window memory
// limit fails with 292 (5414201 with allowDiskUse, which cannot spill
// yet), while the same input in small partitions runs: only one
// partition is held at a time.
func TestWindowPartitionBounded(t *testing.T) {
	withLimits(t, testLimitBytes)
	docs := memDocs(6000) // ~600 KB, 1500 partitions on g
	whole := `[{"$setWindowFields": {"output": {"s": {"$sum": "$v"}}}}]`
	_, err := runMem(t, whole, docs, false, "")
	wantNoDiskUse(t, err, "Exceeded memory limit in DocumentSourceSetWindowFields")
	_, err = runMem(t, whole, docs, true, t.TempDir())
	if !mongoerr.Is(err, mongoerr.WindowMemoryExceeded) {
		t.Fatalf("with allowDiskUse: want 5414201, got %v", err)
	}

	parts := `[{"$setWindowFields": {"partitionBy": "$g", "sortBy": {"_id": 1}, "output": {"s": {"$sum": "$v", "window": {"documents": ["unbounded", "current"]}}}}}]`
	got, err := runMem(t, parts, docs, true, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	want := inMemory(t, parts, docs)
	if len(got) != len(docs) || len(want) != len(docs) {
		t.Fatalf("got %d and %d documents, want %d", len(got), len(want), len(docs))
	}
	for i := range got {
		if groupKey(got[i]) != groupKey(want[i]) {
			t.Fatalf("document %d: got %v, want %v", i, got[i], want[i])
		}
	}
}
