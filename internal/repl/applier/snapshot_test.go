package applier

import (
	"slices"
	"testing"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/catalog/catalogtest"
)

func majority(t *testing.T, c *catalog.Catalog) *catalog.Snapshot {
	t.Helper()
	s, ok := c.MajoritySnapshot()
	if !ok {
		t.Fatal("no majority snapshot")
	}
	t.Cleanup(s.Release)
	return s
}

func equalIDs(a, b []int32) bool { return slices.Equal(a, b) }

// A secondary applying entries the commit point already covers reads them
// at majority at once. Snapshots are taken at batch boundaries: entries
// applied in separate batches are readable one by one.
func TestMajoritySnapshotOnApply(t *testing.T) {
	p := openMem(t)
	coll := mustColl(t, p, "db", "c")
	mustInsert(t, p, coll, d("_id", int32(1)), d("_id", int32(2)))
	entries := entriesOf(t, p)
	s := openMem(t)
	last := entries[len(entries)-1].TS
	s.SetCommitPoint(entries[len(entries)-2].TS)
	must(t, applyBatch(s, entries[:len(entries)-1]))
	must(t, applyBatch(s, entries[len(entries)-1:]))
	snap := majority(t, s)
	if snap.TS() != entries[len(entries)-2].TS {
		t.Fatalf("majority at %v want %v", snap.TS(), entries[len(entries)-2].TS)
	}
	if got := idsAt(t, s.Collection("db", "c"), snap); !equalIDs(got, []int32{1}) {
		t.Fatalf("majority sees %v", got)
	}
	s.SetCommitPoint(last)
	if got := idsAt(t, s.Collection("db", "c"), majority(t, s)); !equalIDs(got, []int32{1, 2}) {
		t.Fatalf("majority sees %v after commit", got)
	}
}

// A run of CRUD entries commits in one batch (apply_run.go): a commit
// point inside the run leaves the majority snapshot before the run (never
// a part of it) until the commit point reaches the run's end.
func TestMajoritySnapshotOnRun(t *testing.T) {
	p := openMem(t)
	coll := mustColl(t, p, "db", "c")
	mustInsert(t, p, coll, d("_id", int32(1)), d("_id", int32(2)))
	entries := entriesOf(t, p)
	s := openMem(t)
	s.SetCommitPoint(entries[len(entries)-2].TS)
	must(t, applyBatch(s, entries))
	snap := majority(t, s)
	if snap.TS() != entries[0].TS {
		t.Fatalf("majority at %v want %v (before the run)", snap.TS(), entries[0].TS)
	}
	if got := idsAt(t, s.Collection("db", "c"), snap); len(got) != 0 {
		t.Fatalf("majority sees %v inside the run", got)
	}
	s.SetCommitPoint(entries[len(entries)-1].TS)
	if got := idsAt(t, s.Collection("db", "c"), majority(t, s)); !equalIDs(got, []int32{1, 2}) {
		t.Fatalf("majority sees %v after commit", got)
	}
}

var idsAt = catalogtest.IDsAt
