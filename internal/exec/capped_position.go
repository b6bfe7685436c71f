package exec

import (
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// A tailable cursor's position is the last document it returned. When
// that document leaves the capped collection (evicted by newer inserts,
// or deleted), the cursor dies with CappedPositionLost (136), as
// MongoDB's does: the client learns it missed documents instead of
// silently skipping them. The check runs before each read of new inserts
// (one point lookup by _id). A position with no _id (a projection that
// excludes it) is not checked.

// positionLookup reports whether the document with this _id is still in
// the collection.
type positionLookup func(id any) (bool, error)

// track records r as the cursor's position.
func (t *cappedTail) track(r *Row) *Row {
	if t.exists == nil || r == nil {
		return r
	}
	doc, err := r.decoded()
	if err != nil {
		t.lastID, t.hasLast = nil, false
		return r
	}
	t.lastID, t.hasLast = bsonx.Get(doc, "_id")
	return r
}

// positionLost checks the position before new inserts are read.
func (t *cappedTail) positionLost() bool {
	if !t.hasLast {
		return false
	}
	found, err := t.exists(t.lastID)
	switch {
	case err != nil:
		t.err = err
	case !found:
		t.err = mongoerr.New(mongoerr.CappedPositionLost, "CollectionScan died due to position in capped collection being deleted")
	}
	return t.err != nil
}
