package storage

import (
	"bytes"
	"fmt"

	"github.com/cockroachdb/pebble"

	"github.com/relaydb/relaydb/internal/invariants"
)

// Batch is a set of writes applied atomically by Commit. Get reads through
// the batch (its own writes first, then the committed state), which is what
// unique-index checks need.
type Batch struct {
	b *pebble.Batch
	// docKeys are the document keys written, updated in the document
	// cache when the batch commits (doccache.go); docVals, parallel to
	// them, the values set (nil: a delete, or past writeThroughBudget);
	// clearDocs: a range deletion touched documents, so the whole cache
	// goes.
	docKeys   [][]byte
	docVals   [][]byte
	valBytes  int
	clearDocs bool
	// unlogged: see MarkUnlogged.
	unlogged bool
}

// MarkUnlogged declares that b writes replicated documents whose history
// the oplog already holds or takes from elsewhere (initial sync's cloning,
// rollback's document restores), so it appends no oplog entry for them.
// The invariants check (batch_invariants.go) exempts such a batch from
// rule 1 and requires it to hold no oplog entry; every other batch that
// writes a replicated document must carry its entry. Only the catalog's
// write primitive marks batches.
func (b *Batch) MarkUnlogged() { b.unlogged = true }

// Unlogged reports whether b is marked (MarkUnlogged).
func (b *Batch) Unlogged() bool { return b.unlogged }

// NewBatch returns an empty indexed batch.
func (e *Engine) NewBatch() *Batch { return &Batch{b: e.db.NewIndexedBatch()} }

// Set writes key=value in the batch.
func (b *Batch) Set(key, value []byte) error {
	b.noteKey(key, value, false)
	return b.b.Set(key, value, nil)
}

// SetOwned is Set for a value the caller hands over: it is never modified
// again, so the document cache may keep it without a copy.
func (b *Batch) SetOwned(key, value []byte) error {
	b.noteKey(key, value, true)
	return b.b.Set(key, value, nil)
}

// writeThroughBudget bounds the document values one batch copies for the
// document cache; past it (bulk loads, initial sync) the rest are only
// invalidated.
const writeThroughBudget = 1 << 20

// noteKey records a document key written and, within the budget, the
// value set (nil for a delete): a copy unless owned.
func (b *Batch) noteKey(key, value []byte, owned bool) {
	if !isDocKey(key) {
		return
	}
	b.docKeys = append(b.docKeys, append([]byte(nil), key...))
	var v []byte
	if value != nil && b.valBytes+len(value) <= writeThroughBudget {
		v = value
		if !owned {
			v = append(make([]byte, 0, len(value)), value...)
		}
		b.valBytes += len(value)
	}
	b.docVals = append(b.docVals, v)
}

// Delete deletes key in the batch.
func (b *Batch) Delete(key []byte) error {
	b.noteKey(key, nil, false)
	return b.b.Delete(key, nil)
}

// Get returns a copy of key's value as seen through the batch.
func (b *Batch) Get(key []byte) ([]byte, bool, error) { return get(b.b, key) }

// Count returns the number of writes in the batch.
func (b *Batch) Count() uint32 { return b.b.Count() }

// Len returns the batch's encoded size in bytes.
func (b *Batch) Len() int { return b.b.Len() }

// Close releases the batch without committing it (no-op after Commit).
func (b *Batch) Close() {
	if b.b != nil {
		_ = b.b.Close()
		b.b = nil
	}
}

// Commit applies b atomically and returns its commit sequence (for
// WaitDurable). With sync it returns after the WAL is synced. A failure calls
// Fatal: the engine cannot continue after losing a write.
func (e *Engine) Commit(b *Batch, sync bool) (uint64, error) {
	if invariants.Enabled {
		e.checkBatch(b)
	}
	opts := pebble.NoSync
	if sync {
		opts = pebble.Sync
	}
	if err := e.noteDocs(b.docKeys); err != nil { // docmax.go; nothing applied yet
		return 0, fmt.Errorf("storage: commit: %w", err)
	}
	if err := e.apply(b, opts); err != nil {
		err = fmt.Errorf("storage: commit: %w", err)
		Fatal(e.logger, "durable write failed", err)
		return 0, err
	}
	if seq := b.b.SeqNum(); b.clearDocs {
		e.cache.clear(seq)
	} else if len(b.docKeys) > 0 {
		e.cache.update(b.docKeys, b.docVals, seq)
	}
	b.Close()
	// A synced batch is durable itself, but durable is not advanced here:
	// an earlier seq may have reached the WAL after this batch's sync.
	return e.committed.Add(1), nil
}

// apply is Pebble's Apply with its panics (a failed WAL write, e.g. ENOSPC,
// panics inside Pebble's commit pipeline) turned into errors, so that they
// reach Fatal instead of a caller's recover that would keep serving from an
// engine that has lost a write.
func (e *Engine) apply(b *Batch, opts *pebble.WriteOptions) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("pebble panicked: %v", r)
		}
	}()
	return e.db.Apply(b.b, opts)
}

// Iter iterates over keys in [lo, hi) of a consistent point-in-time view.
// It stays valid until Close, so cursors may keep it across getMore.
type Iter struct {
	it *pebble.Iterator
	m  *mergeIter // an overlaid snapshot's iterator (overlay_iter.go), or nil
}

// NewIter returns an iterator over [lo, hi) (nil = unbounded), unpositioned.
func (e *Engine) NewIter(lo, hi []byte) (*Iter, error) {
	it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return nil, fmt.Errorf("storage: new iterator: %w", err)
	}
	return &Iter{it: it}, nil
}

// First positions at the first key; it reports whether one exists.
func (i *Iter) First() bool {
	if i.m != nil {
		return i.m.first()
	}
	return i.it.First()
}

// Last positions at the last key.
func (i *Iter) Last() bool {
	if i.m != nil {
		return i.m.last()
	}
	return i.it.Last()
}

// SeekGE positions at the first key >= k.
func (i *Iter) SeekGE(k []byte) bool {
	if i.m != nil {
		return i.m.seekGE(k)
	}
	return i.it.SeekGE(k)
}

// SeekLT positions at the last key < k.
func (i *Iter) SeekLT(k []byte) bool {
	if i.m != nil {
		return i.m.seekLT(k)
	}
	return i.it.SeekLT(k)
}

// Next moves forward.
func (i *Iter) Next() bool {
	if i.m != nil {
		return i.m.next()
	}
	return i.it.Next()
}

// Prev moves backward.
func (i *Iter) Prev() bool {
	if i.m != nil {
		return i.m.prev()
	}
	return i.it.Prev()
}

// Valid reports whether the iterator is positioned at a key.
func (i *Iter) Valid() bool {
	if i.m != nil {
		return i.m.valid
	}
	return i.it.Valid()
}

// Key returns the current key; valid only until the next move.
func (i *Iter) Key() []byte {
	if i.m != nil {
		return i.m.key()
	}
	return i.it.Key()
}

// Value returns the current value; valid only until the next move.
func (i *Iter) Value() []byte {
	if i.m != nil {
		return i.m.value()
	}
	return i.it.Value()
}

// Error returns the iteration error, if any.
func (i *Iter) Error() error { return i.it.Error() }

// Close releases the iterator.
func (i *Iter) Close() error { return i.it.Close() }

// Snapshot is a consistent point-in-time read view (point reads + iterators).
type Snapshot struct {
	s *pebble.Snapshot
	// ov, when set, is layered over s (overlay.go); a borrowed view does
	// not close s but runs onClose.
	ov       *Overlay
	onClose  func()
	borrowed bool
}

// NewSnapshot returns a view of the current committed state.
func (e *Engine) NewSnapshot() *Snapshot { return &Snapshot{s: e.db.NewSnapshot()} }

// Get returns a copy of key's value in the snapshot.
func (s *Snapshot) Get(key []byte) ([]byte, bool, error) {
	if s.ov != nil {
		return s.overlayGet(key)
	}
	return get(s.s, key)
}

// NewIter returns an iterator over [lo, hi) of the snapshot.
func (s *Snapshot) NewIter(lo, hi []byte) (*Iter, error) {
	if s.ov != nil {
		return s.newOverlayIter(lo, hi)
	}
	it, err := s.s.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return nil, fmt.Errorf("storage: new snapshot iterator: %w", err)
	}
	return &Iter{it: it}, nil
}

// Close releases the snapshot.
func (s *Snapshot) Close() error { return s.close() }

// DeleteRange deletes every key in [lo, hi) in the batch.
func (b *Batch) DeleteRange(lo, hi []byte) error {
	if rangeHasDocs(lo, hi) {
		b.clearDocs = true
	}
	return b.b.DeleteRange(lo, hi, nil)
}

// rangeHasDocs reports whether [lo, hi) may contain document keys.
func rangeHasDocs(lo, hi []byte) bool {
	docLo, docHi := []byte{PrefixDocument}, []byte{PrefixDocument + 1}
	return bytes.Compare(lo, docHi) < 0 && (hi == nil || bytes.Compare(hi, docLo) > 0)
}
