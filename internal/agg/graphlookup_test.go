package agg

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// TestGraphLookupBounded: a search holding more than
// internalDocumentSourceGraphLookupMaxMemoryBytes fails with 292, or
// 40099 with allowDiskUse (no spilling yet); under it, it runs.
func TestGraphLookupBounded(t *testing.T) {
	const pipe = `[{"$graphLookup": {"from": "employees", "startWith": "$reportsTo", "connectFromField": "reportsTo", "connectToField": "name", "as": "h"}}]`
	docs := []bson.D{{{Key: "_id", Value: 5}, {Key: "reportsTo", Value: "Ron"}}}
	withLimits(t, 150) // Ron, Eliot and Dev take about 2*(45+32)*3 bytes
	_, err := runMem(t, pipe, docs, false, "")
	wantNoDiskUse(t, err, "$graphLookup reached maximum memory consumption")
	_, err = runMem(t, pipe, docs, true, t.TempDir())
	if !mongoerr.Is(err, mongoerr.GraphLookupMemory) {
		t.Fatalf("with allowDiskUse: want 40099, got %v", err)
	}
	got := inMemory(t, pipe, docs)
	if h, _ := got[0][2].Value.(bson.A); len(h) != 3 {
		t.Fatalf("want 3 documents in h, got %v", got[0])
	}
}
