package exec

// Reads in a catalog.Snapshot (readConcern "majority").
//
// Invariants:
//   - A query reading a snapshot holds a reference to it from Find until
//     its iterator is closed (holdIter), so a cursor's getMore reads the
//     same point in time as its first batch.
//   - A plan never scans an index the snapshot does not hold (built after
//     it): it falls back to a collection scan.

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
)

// planAt returns plan, or a collection scan when plan's index is missing
// from snap.
func planAt(snap *catalog.Snapshot, col *catalog.Collection, plan *Plan, sort bson.D) *Plan {
	if snap == nil || plan.Kind != "IXSCAN" || plan.Index == nil || snap.HasIndex(col, plan.Index) {
		return plan
	}
	return &Plan{Kind: "COLLSCAN", Reverse: naturalReverse(sort)}
}

// holdIter wraps it so that it holds a reference to snap until Close.
func holdIter(it Iterator, snap *catalog.Snapshot) Iterator {
	if snap == nil {
		return it
	}
	snap.Acquire()
	return &snapIter{Iterator: it, snap: snap}
}

// snapIter releases its snapshot reference on Close.
type snapIter struct {
	Iterator
	snap *catalog.Snapshot
}

func (s *snapIter) Close() error {
	err := s.Iterator.Close()
	if s.snap != nil {
		s.snap.Release()
		s.snap = nil
	}
	return err
}

// countOf returns col's document count in snap (nil: the live counter).
func countOf(col *catalog.Collection, snap *catalog.Snapshot) (int64, bool) {
	if snap == nil {
		return col.Count(), true
	}
	return snap.Count(col)
}
