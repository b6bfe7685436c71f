package storage

// Overlays: a multi-document transaction's own writes, layered over a
// snapshot (Snapshot.WithOverlay), so the transaction reads its snapshot
// plus what it wrote.
//
// Invariants:
//   - An Overlay holds keys in ascending order, each once; a nil value is
//     a deletion (the key reads as absent whatever the snapshot holds).
//   - An iterator over an overlaid snapshot copies the overlay's keys in
//     its range when it is opened: later writes of the transaction are not
//     seen by an open iterator (a cursor keeps the view it started with).
//   - The overlay holds only what its owner puts in it; the base snapshot
//     is never written.

import (
	"bytes"
	"sort"
	"sync"
)

// Overlay is a sorted in-memory set of key writes. It is safe for
// concurrent use.
type Overlay struct {
	mu   sync.RWMutex
	keys [][]byte
	vals [][]byte // nil: deleted
	size int      // bytes of keys and values
}

// NewOverlay returns an empty overlay.
func NewOverlay() *Overlay { return &Overlay{} }

// Put sets key to val (copied); a nil val records a deletion.
func (o *Overlay) Put(key, val []byte) {
	k := append([]byte(nil), key...)
	var v []byte
	if val != nil {
		v = append([]byte{}, val...)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	i := sort.Search(len(o.keys), func(i int) bool { return bytes.Compare(o.keys[i], k) >= 0 })
	if i < len(o.keys) && bytes.Equal(o.keys[i], k) {
		o.size += len(v) - len(o.vals[i])
		o.vals[i] = v
		return
	}
	o.keys = append(o.keys, nil)
	o.vals = append(o.vals, nil)
	copy(o.keys[i+1:], o.keys[i:])
	copy(o.vals[i+1:], o.vals[i:])
	o.keys[i], o.vals[i] = k, v
	o.size += len(k) + len(v)
}

// Lookup returns key's overlaid value: present reports whether the
// overlay holds the key at all (val nil then means deleted).
func (o *Overlay) Lookup(key []byte) (val []byte, present bool) {
	o.mu.RLock()
	defer o.mu.RUnlock()
	i := sort.Search(len(o.keys), func(i int) bool { return bytes.Compare(o.keys[i], key) >= 0 })
	if i < len(o.keys) && bytes.Equal(o.keys[i], key) {
		return o.vals[i], true
	}
	return nil, false
}

// Size returns the bytes of keys and values held.
func (o *Overlay) Size() int {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return o.size
}

// Each calls fn for every key in order (nil val: deleted).
func (o *Overlay) Each(fn func(key, val []byte) error) error {
	o.mu.RLock()
	keys, vals := append([][]byte(nil), o.keys...), append([][]byte(nil), o.vals...)
	o.mu.RUnlock()
	for i := range keys {
		if err := fn(keys[i], vals[i]); err != nil {
			return err
		}
	}
	return nil
}

// rangeCopy returns the keys (and values) in [lo, hi) (nil: unbounded).
func (o *Overlay) rangeCopy(lo, hi []byte) ([][]byte, [][]byte) {
	o.mu.RLock()
	defer o.mu.RUnlock()
	i := 0
	if lo != nil {
		i = sort.Search(len(o.keys), func(i int) bool { return bytes.Compare(o.keys[i], lo) >= 0 })
	}
	j := len(o.keys)
	if hi != nil {
		j = sort.Search(len(o.keys), func(i int) bool { return bytes.Compare(o.keys[i], hi) >= 0 })
	}
	if j <= i {
		return nil, nil
	}
	return append([][]byte(nil), o.keys[i:j]...), append([][]byte(nil), o.vals[i:j]...)
}

// WithOverlay returns a view of s with o layered over it: point reads
// and iterators see o's writes. The view shares s's Pebble snapshot: its
// Close does not close it but calls onClose (nil: nothing), so whoever
// owns s decides when it goes.
func (s *Snapshot) WithOverlay(o *Overlay, onClose func()) *Snapshot {
	return &Snapshot{s: s.s, ov: o, onClose: onClose, borrowed: true}
}

// GetBase returns key's value in the snapshot under any overlay.
func (s *Snapshot) GetBase(key []byte) ([]byte, bool, error) { return get(s.s, key) }

// overlayGet is Get for an overlaid snapshot.
func (s *Snapshot) overlayGet(key []byte) ([]byte, bool, error) {
	if v, ok := s.ov.Lookup(key); ok {
		if v == nil {
			return nil, false, nil
		}
		return append([]byte(nil), v...), true, nil
	}
	return get(s.s, key)
}

// close closes the snapshot, or only runs onClose for a borrowed view.
func (s *Snapshot) close() error {
	if !s.borrowed {
		return s.s.Close()
	}
	if s.onClose != nil {
		s.onClose()
		s.onClose = nil
	}
	return nil
}
