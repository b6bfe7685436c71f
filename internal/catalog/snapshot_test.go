package catalog

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/storage/keystring"
)

// insertTS inserts doc and returns its oplog ts.
func insertTS(t *testing.T, c *Catalog, coll *Collection, doc bson.D) bson.Timestamp {
	t.Helper()
	r, err := c.Insert(coll, doc)
	if err != nil {
		t.Fatal(err)
	}
	return r.TS
}

// idsAt returns the _ids of coll in s, by a collection scan.
func idsAt(t *testing.T, coll *Collection, s *Snapshot) []int32 {
	t.Helper()
	it := coll.ScanAt(s, false)
	defer it.Close()
	var ids []int32
	for {
		raw, ok := it.Next()
		if !ok {
			break
		}
		ids = append(ids, bson.Raw(raw).Lookup("_id").Int32())
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

func majority(t *testing.T, c *Catalog) *Snapshot {
	t.Helper()
	s, ok := c.MajoritySnapshot()
	if !ok {
		t.Fatal("no majority snapshot")
	}
	t.Cleanup(s.Release)
	return s
}

func TestMajoritySnapshotUntracked(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	mustInsert(t, c, coll, d("_id", int32(1)))
	if s, ok := c.MajoritySnapshot(); ok {
		t.Fatalf("standalone has a majority snapshot at %v", s.TS())
	}
}

func TestMajoritySnapshotFollowsCommitPoint(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	t1 := insertTS(t, c, coll, d("_id", int32(1), "x", int32(1)))
	c.SetCommitPoint(t1)
	t2 := insertTS(t, c, coll, d("_id", int32(2), "x", int32(2)))
	t3 := insertTS(t, c, coll, d("_id", int32(3), "x", int32(3)))

	tests := []struct {
		commit bson.Timestamp
		want   []int32
		wantTS bson.Timestamp
	}{
		{t1, []int32{1}, t1},
		{bson.Timestamp{T: t1.T, I: t1.I}, []int32{1}, t1}, // no change
		{t2, []int32{1, 2}, t2},
		{t1, []int32{1, 2}, t2}, // never backwards
		{t3, []int32{1, 2, 3}, t3},
	}
	for i, tc := range tests {
		c.SetCommitPoint(tc.commit)
		s := majority(t, c)
		if s.TS() != tc.wantTS {
			t.Fatalf("step %d: snapshot ts %v want %v", i, s.TS(), tc.wantTS)
		}
		if got := idsAt(t, coll, s); !equalIDs(got, tc.want) {
			t.Fatalf("step %d: majority sees %v want %v", i, got, tc.want)
		}
		_, ok, err := coll.FindByIDAt(s, int32(3))
		if err != nil || ok != (len(tc.want) == 3) {
			t.Fatalf("step %d: FindByIDAt(3) = %v, %v", i, ok, err)
		}
	}
	// The latest state always sees every write.
	if got := idsAt(t, coll, nil); !equalIDs(got, []int32{1, 2, 3}) {
		t.Fatalf("local sees %v", got)
	}
}

func equalIDs(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestMajoritySnapshotIndexScan(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	mustIndex(t, c, coll, spec("x_1", d("x", int32(1))))
	coll = c.Collection("db", "c")
	t1 := insertTS(t, c, coll, d("_id", int32(1), "x", int32(5)))
	c.SetCommitPoint(t1)
	insertTS(t, c, coll, d("_id", int32(2), "x", int32(5)))
	s := majority(t, c)
	idx := coll.Index("x_1")
	if !s.HasIndex(coll, idx) {
		t.Fatal("snapshot lacks x_1")
	}
	lo := keystring.AppendValue(nil, int32(5), false)
	it := coll.ScanIndexAt(s, idx, lo, nil, false)
	n := 0
	for _, ok := it.Next(); ok; _, ok = it.Next() {
		n++
	}
	_ = it.Close()
	if n != 1 {
		t.Fatalf("index scan at majority saw %d documents, want 1", n)
	}
	if cnt, ok := s.Count(coll); !ok || cnt != 1 {
		t.Fatalf("count at majority %d %v", cnt, ok)
	}
	mustIndex(t, c, coll, spec("y_1", d("y", int32(1))))
	if s.HasIndex(coll, c.Collection("db", "c").Index("y_1")) {
		t.Fatal("an index built after the snapshot is reported present")
	}
}

func TestMajoritySnapshotLifetime(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	t1 := insertTS(t, c, coll, d("_id", int32(1)))
	c.SetCommitPoint(t1)
	s, _ := c.MajoritySnapshot()
	it := coll.ScanAt(s, false)
	t2 := insertTS(t, c, coll, d("_id", int32(2)))
	c.SetCommitPoint(t2)
	s.Release()
	if s.s == nil {
		t.Fatal("snapshot closed while an iterator holds it")
	}
	if _, ok := it.Next(); !ok {
		t.Fatal("iterator lost its snapshot")
	}
	if _, ok := it.Next(); ok {
		t.Fatal("iterator sees a write after its snapshot")
	}
	_ = it.Close()
	if s.s != nil {
		t.Fatal("superseded, unreferenced snapshot still open")
	}
}

func TestMajoritySnapshotBoundedPending(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	c.SetCommitPoint(bson.Timestamp{T: 1})
	var ts []bson.Timestamp
	for i := 0; i < 5*maxPendingSnapshots; i++ {
		ts = append(ts, insertTS(t, c, coll, d("_id", int32(i))))
		if n := len(c.snaps.pending); n > maxPendingSnapshots {
			t.Fatalf("%d pending snapshots", n)
		}
	}
	// A thinned commit point: the snapshot is at or before it and
	// consistent (holds exactly the writes up to its ts).
	for _, k := range []int{10, 100, 250, len(ts) - 2} {
		c.SetCommitPoint(ts[k])
		s := majority(t, c)
		if s.TS().After(ts[k]) {
			t.Fatalf("commit %d: snapshot %v after the commit point %v", k, s.TS(), ts[k])
		}
		want := 0
		for _, x := range ts {
			if !x.After(s.TS()) {
				want++
			}
		}
		if got := len(idsAt(t, coll, s)); got != want {
			t.Fatalf("commit %d: snapshot at %v holds %d docs, want %d", k, s.TS(), got, want)
		}
	}
	c.SetCommitPoint(ts[len(ts)-1])
	if s := majority(t, c); s.TS() != ts[len(ts)-1] || len(idsAt(t, coll, s)) != len(ts) {
		t.Fatalf("the newest write is not readable once committed (snapshot %v)", s.TS())
	}
}

func TestWaitMajoritySnapshot(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	t1 := insertTS(t, c, coll, d("_id", int32(1)))
	c.SetCommitPoint(t1)
	t2 := insertTS(t, c, coll, d("_id", int32(2)))

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.WaitMajoritySnapshot(ctx, t2); err == nil {
		t.Fatal("waited for an uncommitted write without timing out")
	}
	done := make(chan *Snapshot)
	go func() {
		s, err := c.WaitMajoritySnapshot(context.Background(), t2)
		if err != nil {
			t.Error(err)
		}
		done <- s
	}()
	time.Sleep(10 * time.Millisecond)
	c.SetCommitPoint(t2)
	select {
	case s := <-done:
		if s == nil || s.TS() != t2 {
			t.Fatalf("woke with %v", s)
		}
		s.Release()
	case <-time.After(5 * time.Second):
		t.Fatal("not woken by the commit point")
	}
}

func TestWaitApplied(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	t1 := insertTS(t, c, coll, d("_id", int32(1)))
	if err := c.WaitApplied(context.Background(), t1); err != nil {
		t.Fatal(err)
	}
	future := bson.Timestamp{T: t1.T + 1000}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := c.WaitApplied(ctx, future); err == nil {
		t.Fatal("a future ts counted as applied")
	}
}
