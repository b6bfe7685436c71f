package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sync"
)

// docMax keeps, per collection, an upper bound of the document keys the
// store holds, so that an insert whose _id sorts after every _id written
// before (ObjectIds the drivers generate, counters, timestamps) needs no
// existence probe: the probe is a seek through every memtable, about a
// fifth of an insert's server CPU.
//
// Invariants:
//   - For every collection with an entry, every document key present in
//     the store or in a batch whose apply has started is <= its bound:
//     Commit raises the bounds of a batch's document keys (sets and
//     deletes) before it applies the batch, and an entry is first filled
//     from the store (its last document key) under mu, when no batch
//     writing that collection can be between the two steps (such a batch
//     would have created the entry).
//   - Bounds only grow (deletes and drops leave them): an answer "absent"
//     is exact, "may exist" may be stale.
//   - At most maxDocMaxEntries collections are tracked; beyond that, new
//     collections get no entry and every probe for them is made.
//   - A collection gets, when its bound is filled, a filter of every key
//     it holds and then receives (docfilter.go): a key below the bound
//     that the filter does not hold is absent too. The keys it holds are
//     read at once up to fillFilterMax, the rest in the background
//     (docfilter_fill.go); until then every probe below the bound is made.
type docMax struct {
	mu       sync.Mutex
	m        map[uint32][]byte     // collection id -> bound (a document key)
	f        map[uint32]*docFilter // collection id -> filter (none: unfiltered)
	building map[uint32]*docFilter // filters being filled in the background (docfilter_fill.go)
	fBytes   int                   // bytes the filters hold (<= maxFilterBytes)
}

// maxDocMaxEntries bounds the memory docMax holds.
const maxDocMaxEntries = 10000

// docColl returns the collection id of document key k.
func docColl(k []byte) (uint32, bool) {
	if len(k) < 5 || k[0] != PrefixDocument {
		return 0, false
	}
	return binary.BigEndian.Uint32(k[1:5]), true
}

// MayHoldDoc reports whether the document key may be present in the
// committed state: false means it certainly is not, so an insert of it
// needs no existence probe. The caller must keep other writers of the
// collection out until its batch commits (the catalog's write lock), as
// for any probe.
func (e *Engine) MayHoldDoc(key []byte) (bool, error) {
	id, ok := docColl(key)
	if !ok {
		return true, nil
	}
	d := &e.docMax
	d.mu.Lock()
	defer d.mu.Unlock()
	bound, err := d.boundLocked(e, id)
	if err != nil || bound == nil { // not tracked: probe
		return true, err
	}
	if bytes.Compare(key, bound) > 0 {
		return false, nil
	}
	if f := d.f[id]; f != nil {
		return f.mayHold(key), nil
	}
	return true, nil
}

// noteDocs raises the bounds for the document keys of a batch about to
// be applied. REQUIRES: called before the batch is applied.
func (e *Engine) noteDocs(keys [][]byte) error {
	if len(keys) == 0 {
		return nil
	}
	d := &e.docMax
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, k := range keys {
		id, ok := docColl(k)
		if !ok {
			continue
		}
		bound, err := d.boundLocked(e, id)
		if err != nil {
			return err
		}
		if bound != nil && bytes.Compare(k, bound) > 0 {
			d.m[id] = k // Batch.noteKey copied it
		}
		d.noteFiltered(id, k)
	}
	return nil
}

// noteFiltered adds k to collection id's filter, or to the one being
// filled, dropping the filter for good when it is full. REQUIRES: d.mu.
func (d *docMax) noteFiltered(id uint32, k []byte) {
	if f := d.f[id]; f != nil && !d.addLocked(f, k) {
		delete(d.f, id)
	}
	if f := d.building[id]; f != nil && !d.addLocked(f, k) {
		delete(d.building, id) // the filler sees it gone and stops
	}
}

// addLocked adds k to f within the engine's byte budget; false when f is
// full (its bytes are then given back: the caller drops it). REQUIRES: d.mu.
func (d *docMax) addLocked(f *docFilter, k []byte) bool {
	grew, ok := f.add(k, maxFilterBytes-d.fBytes)
	d.fBytes += grew
	if !ok {
		for _, s := range f.segs {
			d.fBytes -= len(s.bits) * 8
		}
	}
	return ok
}

// boundLocked returns collection id's bound, filling it from the store on
// first use; nil when the collection is not tracked (the map is full).
// REQUIRES: d.mu.
func (d *docMax) boundLocked(e *Engine, id uint32) ([]byte, error) {
	if b, ok := d.m[id]; ok {
		return b, nil
	}
	if d.m == nil {
		d.m = map[uint32][]byte{}
	}
	if len(d.m) >= maxDocMaxEntries {
		return nil, nil
	}
	last, err := e.lastDocKey(id)
	if err != nil {
		return nil, err
	}
	d.startFilter(e, id, last != nil) // docfilter.go
	if last == nil {
		last = DocPrefix(id) // below every document key of id
	}
	d.m[id] = last
	return last, nil
}

// lastDocKey returns a copy of collection id's greatest document key in
// the committed state, nil if it has none.
func (e *Engine) lastDocKey(id uint32) ([]byte, error) {
	lo := DocPrefix(id)
	it, err := e.NewIter(lo, PrefixEnd(lo))
	if err != nil {
		return nil, err
	}
	var last []byte
	if it.Last() {
		last = append([]byte(nil), it.Key()...)
	}
	if err := it.Error(); err != nil {
		_ = it.Close()
		return nil, fmt.Errorf("storage: last document of collection %d: %w", id, err)
	}
	return last, it.Close()
}
