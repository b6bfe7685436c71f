package catalog

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/iterx"
	"github.com/relaydb/relaydb/internal/storage"
	"github.com/relaydb/relaydb/internal/storage/keystring"
)

// DocIterator yields raw BSON documents under iterx's contract. Each
// document is a fresh copy out of Pebble, the caller's to keep: valid
// after the next Next and after Close. A scan is not tailable: it reads
// one point-in-time view (see Scan).
type DocIterator = iterx.Iterator[[]byte]

// DocByID returns, decoded, the document of db.name whose _id equals id;
// found is false when the collection or the document does not exist.
func (c *Catalog) DocByID(db, name string, id any) (doc bson.D, found bool, err error) {
	coll := c.Collection(db, name)
	if coll == nil {
		return nil, false, nil
	}
	raw, found, err := coll.FindByID(id)
	if err != nil || !found {
		return nil, false, err
	}
	doc, err = bsonx.Decode(raw)
	return doc, err == nil, err
}

// FindByID returns the raw BSON of the document whose _id equals id.
func (coll *Collection) FindByID(id any) ([]byte, bool, error) { return coll.FindByIDAt(nil, id) }

// FindByIDAt is FindByID in snapshot s (nil: the latest state). The caller
// holds a reference to s.
func (coll *Collection) FindByIDAt(s *Snapshot, id any) ([]byte, bool, error) {
	return readerOf(coll.cat, s).Get(storage.DocKey(coll.ID, keystring.AppendValue(nil, id, false)))
}

// Scan iterates over the documents in _id order. The iterator holds a
// Pebble iterator: a consistent point-in-time view as of Scan, valid until
// Close, so cursors may keep it across getMore.
func (coll *Collection) Scan(reverse bool) DocIterator { return coll.ScanAt(nil, reverse) }

// ScanAt is Scan in snapshot s (nil: the latest state); the iterator holds
// its own reference to s until Close.
func (coll *Collection) ScanAt(s *Snapshot, reverse bool) DocIterator {
	p := storage.DocPrefix(coll.ID)
	it, err := readerOf(coll.cat, s).NewIter(p, storage.PrefixEnd(p))
	return iterx.Checked[[]byte](&docIter{it: it, err: err, reverse: reverse, snap: holdSnapshot(s)}, false)
}

// docIter yields values of a storage iterator.
type docIter struct {
	it      *storage.Iter
	err     error
	reverse bool
	started bool
	done    bool      // the scan ended (or failed): Next stays false
	snap    *Snapshot // released at Close; nil when reading the latest state
}

func (d *docIter) Next() ([]byte, bool) {
	if d.done || d.err != nil || d.it == nil {
		return nil, false
	}
	if !d.step() {
		d.done, d.err = true, d.it.Error()
		return nil, false
	}
	return append([]byte(nil), d.it.Value()...), true
}

func (d *docIter) step() bool {
	if !d.started {
		d.started = true
		if d.reverse {
			return d.it.Last()
		}
		return d.it.First()
	}
	if d.reverse {
		return d.it.Prev()
	}
	return d.it.Next()
}

func (d *docIter) Err() error { return d.err }

func (d *docIter) Close() error {
	var err error
	if d.it != nil {
		err = d.it.Close()
		d.it = nil
	}
	if d.snap != nil {
		d.snap.Release()
		d.snap = nil
	}
	return err
}

// ScanIndex iterates over the documents whose idx entry (the encoded key
// bytes after the index id, as built with keystring) lies in [lo, hi); nil
// means unbounded. Documents come in index order, each _id once (multikey
// indexes are deduplicated). For _id_ the range applies to keystring(_id).
// It holds a Pebble snapshot (point-in-time view) until Close.
func (coll *Collection) ScanIndex(idx *Index, lo, hi []byte, reverse bool) DocIterator {
	return coll.ScanIndexAt(nil, idx, lo, hi, reverse)
}

// ScanIndexAt is ScanIndex in snapshot s (nil: the latest state); the
// iterator holds its own reference to s until Close. The caller checks
// s.HasIndex first: an index built after s has no entries in it.
func (coll *Collection) ScanIndexAt(s *Snapshot, idx *Index, lo, hi []byte, reverse bool) DocIterator {
	if idx.IsID() {
		p := storage.DocPrefix(coll.ID)
		it, err := readerOf(coll.cat, s).NewIter(bound(p, lo, false), bound(p, hi, true))
		return iterx.Checked[[]byte](&docIter{it: it, err: err, reverse: reverse, snap: holdSnapshot(s)}, false)
	}
	var snap *storage.Snapshot
	if s != nil {
		snap = s.s
	} else {
		snap = coll.cat.eng.NewSnapshot()
	}
	p := storage.IndexPrefix(idx.ID)
	it, err := snap.NewIter(bound(p, lo, false), bound(p, hi, true))
	ix := &indexIter{coll: coll, idx: idx, snap: snap, ownSnap: s == nil}
	ix.docIter = docIter{it: it, err: err, reverse: reverse, snap: holdSnapshot(s)}
	if idx.Multikey {
		ix.seen = map[string]bool{}
	}
	return iterx.Checked[[]byte](ix, false)
}

// bound returns prefix+b, or the prefix's range end for a nil upper bound.
func bound(prefix, b []byte, upper bool) []byte {
	if b == nil {
		if upper {
			return storage.PrefixEnd(prefix)
		}
		return prefix
	}
	return append(append([]byte(nil), prefix...), b...)
}

// indexIter walks index entries and fetches their documents.
type indexIter struct {
	docIter
	coll    *Collection
	idx     *Index
	snap    *storage.Snapshot
	ownSnap bool            // snap was made for this iterator (close it)
	seen    map[string]bool // _ids already returned (multikey only)
}

func (x *indexIter) Next() ([]byte, bool) {
	for !x.done && x.err == nil && x.it != nil && x.step() {
		idKS, err := x.entryID()
		if err != nil {
			x.err = err
			return nil, false
		}
		if x.seen != nil {
			if x.seen[string(idKS)] {
				continue
			}
			x.seen[string(idKS)] = true
		}
		doc, ok, err := x.snap.Get(storage.DocKey(x.coll.ID, idKS))
		if err != nil {
			x.err = fmt.Errorf("catalog: fetch document: %w", err)
			return nil, false
		}
		if ok {
			return doc, true
		}
	}
	if !x.done && x.err == nil && x.it != nil {
		x.done, x.err = true, x.it.Error()
	}
	return nil, false
}

// entryID returns keystring(_id) of the current entry.
func (x *indexIter) entryID() ([]byte, error) {
	if x.idx.Unique {
		return append([]byte(nil), x.it.Value()...), nil
	}
	id, err := splitIDFromKey(x.idx, x.it.Key()[5:])
	return append([]byte(nil), id...), err
}

func (x *indexIter) Close() error {
	err := x.docIter.Close()
	if x.snap != nil && x.ownSnap {
		if cerr := x.snap.Close(); err == nil {
			err = cerr
		}
		x.snap = nil
	}
	return err
}
