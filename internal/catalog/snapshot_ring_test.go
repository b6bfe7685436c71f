package catalog

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestSnapshotAt(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	c.KeepSnapshotHistory()
	t1 := insertTS(t, c, coll, d("_id", int32(1)))
	c.SetCommitPoint(t1)
	t2 := insertTS(t, c, coll, d("_id", int32(2)))
	c.SetCommitPoint(t2)
	count := func(s *Snapshot) int {
		it := coll.ScanAt(s, false)
		defer it.Close()
		n := 0
		for _, ok := it.Next(); ok; _, ok = it.Next() {
			n++
		}
		return n
	}
	for _, tc := range []struct {
		at   bson.Timestamp
		want int // documents; -1: unavailable
	}{
		{t1, 1},
		{t2, 2},
		{bson.Timestamp{T: t1.T, I: t1.I - 1}, -1}, // before every kept snapshot
	} {
		s, err := c.SnapshotAt(tc.at)
		if tc.want < 0 {
			if err == nil {
				t.Errorf("at %v: got a snapshot, want SnapshotUnavailable", tc.at)
				s.Release()
			}
			continue
		}
		if err != nil {
			t.Fatalf("at %v: %v", tc.at, err)
		}
		if n := count(s); n != tc.want {
			t.Errorf("at %v: %d documents, want %d", tc.at, n, tc.want)
		}
		s.Release()
	}
}
