package catalog

import (
	"encoding/binary"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/storage"
)

// reader is what a read goes to: the engine (latest state) or a snapshot.
type reader interface {
	Get(key []byte) ([]byte, bool, error)
	NewIter(lo, hi []byte) (*storage.Iter, error)
}

// readerOf returns s's Pebble snapshot, or the engine when s is nil.
func readerOf(c *Catalog, s *Snapshot) reader {
	if s == nil {
		return c.eng
	}
	return s.s
}

// holdSnapshot takes a reference for an iterator (nil stays nil).
func holdSnapshot(s *Snapshot) *Snapshot {
	if s != nil {
		s.Acquire()
	}
	return s
}

// HasIndex reports whether idx existed, with its entries, in s: the
// persisted catalog entry of coll in s lists it. An index built after s
// has no entries in s, so a read at s must not scan it.
func (s *Snapshot) HasIndex(coll *Collection, idx *Index) bool {
	if idx.IsID() {
		return true
	}
	if s.txn != nil && s.txn.wrote(coll.ID) {
		return false // its entries are not in the view's overlay
	}
	raw, ok, err := s.s.Get(storage.CatalogKey(coll.ID))
	if err != nil || !ok {
		return false
	}
	var e catalogEntry
	if err := bson.Unmarshal(raw, &e); err != nil {
		return false
	}
	for _, ie := range e.Indexes {
		if uint32(ie.ID) == idx.ID {
			return true
		}
	}
	return false
}

// Count returns the number of documents of coll in s (the counters are
// written in the same batch as the documents).
func (s *Snapshot) Count(coll *Collection) (int64, bool) {
	if s.txn != nil && s.txn.wrote(coll.ID) {
		return 0, false
	}
	raw, ok, err := s.s.Get(storage.CollStatsKey(coll.ID))
	if err != nil || !ok || len(raw) < 8 {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(raw[:8])), true
}
