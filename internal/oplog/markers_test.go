package oplog

import (
	"testing"

	"github.com/cockroachdb/pebble/vfs"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/storage"
)

// truth scans the stored oplog: what the accounting must say.
func truth(t *testing.T, eng *storage.Engine) (bytes, count int64, first bson.Timestamp) {
	t.Helper()
	lo, hi := storage.OplogBounds()
	it, err := eng.NewIter(lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if count == 0 {
			first, _ = storage.OplogTS(it.Key())
		}
		bytes += int64(len(it.Value()))
		count++
	}
	return bytes, count, first
}

// checkAccounting fails unless l's size, count, first and ranges match
// the stored entries exactly.
func checkAccounting(t *testing.T, eng *storage.Engine, l *Log) {
	t.Helper()
	bytes, count, first := truth(t, eng)
	l.mu.Lock()
	defer l.mu.Unlock()
	mb, mc := l.mu.marks.totals()
	if l.mu.bytes != bytes || l.mu.count != count || l.mu.first != first || mb != bytes || mc != count {
		t.Fatalf("accounting bytes %d count %d first %v (ranges %d/%d), stored %d/%d first %v",
			l.mu.bytes, l.mu.count, l.mu.first, mb, mc, bytes, count, first)
	}
	prev := bson.Timestamp{}
	for i, r := range l.mu.marks.full {
		if !r.Last.After(prev) || r.Count <= 0 {
			t.Fatalf("range %d %+v after %v", i, r, prev)
		}
		prev = r.Last
	}
	if l.mu.marks.cur.Count > 0 && l.mu.marks.cur.Last != l.mu.visible {
		t.Fatalf("current range ends at %v, visible %v", l.mu.marks.cur.Last, l.mu.visible)
	}
}

// fill writes n entries of about size bytes each.
func (f *fixture) fill(t *testing.T, n, size int) []bson.Timestamp {
	t.Helper()
	pad := string(make([]byte, size))
	var ts []bson.Timestamp
	for i := 0; i < n; i++ {
		ts = append(ts, f.write(t, bson.D{{Key: "pad", Value: pad}}))
	}
	return ts
}

func TestMarkersAcrossTruncation(t *testing.T) {
	tests := []struct {
		name       string
		n, size    int
		wantRanges bool // Truncate drops whole ranges (no entry-by-entry step)
	}{
		{"small entries", 3000, 1000, true},
		{"entries of a range each", 200, 12 << 10, true},
		{"one huge entry over the cap", 2, 1100 << 10, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, nil, 1)
			defer f.eng.Close()
			ts := f.fill(t, tc.n, tc.size)
			checkAccounting(t, f.eng, f.log)
			if f.log.SizeBytes() <= f.log.MaxBytes() {
				t.Fatal("fixture did not exceed the cap")
			}
			n, err := f.log.Truncate()
			if err != nil || n == 0 {
				t.Fatalf("truncate %d %v", n, err)
			}
			checkAccounting(t, f.eng, f.log)
			if tc.wantRanges && f.log.SizeBytes() > f.log.MaxBytes() {
				t.Fatalf("size %d above the cap %d", f.log.SizeBytes(), f.log.MaxBytes())
			}
			if f.log.SizeBytes() < f.log.MaxBytes()-2*markerTarget(f.log.MaxBytes()) && tc.wantRanges {
				t.Fatalf("size %d: truncated far below the cap %d", f.log.SizeBytes(), f.log.MaxBytes())
			}
			if f.log.First() != ts[n] || f.log.Visible() != ts[len(ts)-1] {
				t.Fatalf("first %v want %v (visible %v)", f.log.First(), ts[n], f.log.Visible())
			}
			// A reader positioned inside a dropped range finds neither its
			// position nor an oldest entry at or before it (the callers'
			// CappedPositionLost and too-stale checks).
			got, err := f.log.ReadRaw(ts[n-1], true, 1)
			if err != nil || len(got) != 1 {
				t.Fatalf("read after a dropped position: %d %v", len(got), err)
			}
			if e, _ := Unmarshal(got[0]); e.TS == ts[n-1] || !f.log.First().After(ts[n-1]) {
				t.Fatalf("dropped position %v still readable (first %v)", ts[n-1], f.log.First())
			}
			more := f.fill(t, tc.n/2+1, tc.size)
			if _, err := f.log.Truncate(); err != nil {
				t.Fatal(err)
			}
			checkAccounting(t, f.eng, f.log)
			if f.log.Visible() != more[len(more)-1] {
				t.Fatal("newest entry truncated")
			}
		})
	}
}

func TestTruncateNeverDropsTheNewestVisibleEntry(t *testing.T) {
	f := newFixture(t, nil, 1)
	defer f.eng.Close()
	f.fill(t, 3, 1100<<10)               // each entry over the cap
	s, b := f.reserveAppend(t, bson.D{}) // pending: the visibility point stays
	defer b.Close()
	if _, err := f.log.Truncate(); err != nil {
		t.Fatal(err)
	}
	checkAccounting(t, f.eng, f.log)
	if _, ok, err := f.eng.Get(storage.OplogKey(f.log.Visible())); !ok || err != nil {
		t.Fatalf("the newest visible entry %v was truncated (%v)", f.log.Visible(), err)
	}
	if f.log.First() != f.log.Visible() {
		t.Fatalf("first %v: over the cap, everything but the newest visible entry goes", f.log.First())
	}
	f.log.Abort(s)
}

func TestTruncateAfterAcrossMarkerBoundary(t *testing.T) {
	f := newFixture(t, nil, 1)
	defer f.eng.Close()
	ts := f.fill(t, 400, 2000) // ~5 entries a range
	n0, _ := f.log.Truncate()
	checkAccounting(t, f.eng, f.log)
	f.log.mu.Lock()
	boundary := f.log.mu.marks.full[len(f.log.mu.marks.full)-3].Last
	f.log.mu.Unlock()
	for _, cut := range []bson.Timestamp{ts[390], boundary, {T: boundary.T, I: boundary.I - 1}, ts[n0+1]} {
		if !cut.After(f.log.Visible()) {
			if _, err := f.log.TruncateAfter(cut); err != nil {
				t.Fatalf("TruncateAfter(%v): %v", cut, err)
			}
		}
		checkAccounting(t, f.eng, f.log)
		if f.log.Visible() != cut && !cut.After(f.log.Visible()) {
			t.Fatalf("visible %v after TruncateAfter(%v)", f.log.Visible(), cut)
		}
	}
	more := f.fill(t, 300, 2000)
	if _, err := f.log.Truncate(); err != nil {
		t.Fatal(err)
	}
	checkAccounting(t, f.eng, f.log)
	if f.log.Visible() != more[len(more)-1] {
		t.Fatal("top lost")
	}
	if _, err := f.log.TruncateAfter(bson.Timestamp{}); err != nil {
		t.Fatal(err)
	}
	checkAccounting(t, f.eng, f.log)
	if f.log.Count() != 0 || !f.log.First().IsZero() {
		t.Fatalf("count %d first %v after truncating everything", f.log.Count(), f.log.First())
	}
}

func TestRestartFromCheckpointAfterCrash(t *testing.T) {
	fs := strictMem(t)
	f := newFixture(t, fs, 1)
	f.fill(t, 3000, 1000)
	if n, err := f.log.Truncate(); err != nil || n == 0 { // writes the checkpoint
		t.Fatalf("truncate %d %v", n, err)
	}
	f.fill(t, 100, 1000) // after the checkpoint
	if err := f.eng.SyncNow(); err != nil {
		t.Fatal(err)
	}
	fs.SetIgnoreSyncs(true)
	f.fill(t, 50, 1000) // lost in the crash
	if _, err := f.log.Truncate(); err != nil {
		t.Fatal(err)
	}
	_ = f.eng.Close()
	fs.ResetToSyncedState()
	fs.SetIgnoreSyncs(false)

	g := newFixture(t, fs, 1)
	defer g.eng.Close()
	checkAccounting(t, g.eng, g.log)
	g.log.mu.Lock()
	scanned, written := g.log.mu.cp.scannedAtOpen, g.log.mu.cp.written
	g.log.mu.Unlock()
	if !written || scanned != 100 {
		t.Fatalf("open scanned %d entries (checkpoint %v), want the 100 after it", scanned, written)
	}
	g.fill(t, 500, 1000)
	if _, err := g.log.Truncate(); err != nil {
		t.Fatal(err)
	}
	checkAccounting(t, g.eng, g.log)
	if g.log.SizeBytes() > g.log.MaxBytes() {
		t.Fatal("over the cap after restart")
	}
}

func TestCheckpointThatDoesNotMatchIsIgnored(t *testing.T) {
	fs := vfs.NewMem()
	f := newFixture(t, fs, 1)
	f.fill(t, 20, 1000)
	if err := f.log.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	// Delete the entries behind the oplog's back: the checkpoint's first
	// and upto entries are gone.
	b := f.eng.NewBatch()
	lo, hi := storage.OplogBounds()
	if err := b.DeleteRange(lo, hi); err != nil {
		t.Fatal(err)
	}
	if _, err := f.eng.Commit(b, false); err != nil {
		t.Fatal(err)
	}
	_ = f.eng.Close()
	g := newFixture(t, fs, 1)
	defer g.eng.Close()
	checkAccounting(t, g.eng, g.log)
	if g.log.Count() != 0 {
		t.Fatalf("count %d after the entries were deleted", g.log.Count())
	}
}

// strictMem is a file system that loses what was not synced at
// ResetToSyncedState, with the engine's directory already durable.
func strictMem(t *testing.T) *vfs.MemFS {
	t.Helper()
	fs := vfs.NewStrictMem()
	if err := fs.MkdirAll("db", 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := fs.OpenDir("")
	if err != nil {
		t.Fatal(err)
	}
	if err := root.Sync(); err != nil {
		t.Fatal(err)
	}
	return fs
}
