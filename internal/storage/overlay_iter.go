package storage

import (
	"bytes"
	"sort"

	"github.com/cockroachdb/pebble"
)

// mergeIter iterates over a snapshot's keys with an overlay's copied
// range layered over them: an overlay key shadows the snapshot's, a
// deletion hides it. It moves in either direction.
type mergeIter struct {
	base       *pebble.Iterator
	keys, vals [][]byte
	oi         int  // overlay position
	fromOv     bool // the current key is the overlay's
	valid      bool
	fwd        bool
}

func (m *mergeIter) baseKey() ([]byte, bool) {
	if !m.base.Valid() {
		return nil, false
	}
	return m.base.Key(), true
}

// settle positions at the nearest visible key in the current direction.
func (m *mergeIter) settle() bool {
	for {
		bk, bok := m.baseKey()
		ook := m.oi >= 0 && m.oi < len(m.keys)
		if !bok && !ook {
			m.valid = false
			return false
		}
		useOv := ook
		if ook && bok {
			c := bytes.Compare(m.keys[m.oi], bk)
			if c == 0 { // shadowed: drop the snapshot's key
				m.stepBase()
				continue
			}
			useOv = (c < 0) == m.fwd
		}
		if useOv && m.vals[m.oi] == nil {
			m.stepOv()
			continue
		}
		m.fromOv, m.valid = useOv, true
		return true
	}
}

func (m *mergeIter) stepBase() {
	if m.fwd {
		m.base.Next()
	} else {
		m.base.Prev()
	}
}

func (m *mergeIter) stepOv() {
	if m.fwd {
		m.oi++
	} else {
		m.oi--
	}
}

// ovSearch returns the first overlay index with key >= k.
func (m *mergeIter) ovSearch(k []byte) int {
	return sort.Search(len(m.keys), func(i int) bool { return bytes.Compare(m.keys[i], k) >= 0 })
}

func (m *mergeIter) first() bool {
	m.fwd, m.oi = true, 0
	m.base.First()
	return m.settle()
}

func (m *mergeIter) last() bool {
	m.fwd, m.oi = false, len(m.keys)-1
	m.base.Last()
	return m.settle()
}

func (m *mergeIter) seekGE(k []byte) bool {
	m.fwd, m.oi = true, m.ovSearch(k)
	m.base.SeekGE(k)
	return m.settle()
}

func (m *mergeIter) seekLT(k []byte) bool {
	m.fwd, m.oi = false, m.ovSearch(k)-1
	m.base.SeekLT(k)
	return m.settle()
}

func (m *mergeIter) next() bool {
	if !m.valid {
		return false
	}
	if !m.fwd {
		k := append([]byte(nil), m.key()...)
		if !m.seekGE(k) || !bytes.Equal(m.key(), k) {
			return m.valid
		}
	}
	if m.fromOv {
		m.oi++
	} else {
		m.base.Next()
	}
	return m.settle()
}

func (m *mergeIter) prev() bool {
	if !m.valid {
		return false
	}
	if m.fwd {
		return m.seekLT(append([]byte(nil), m.key()...))
	}
	if m.fromOv {
		m.oi--
	} else {
		m.base.Prev()
	}
	return m.settle()
}

func (m *mergeIter) key() []byte {
	if m.fromOv {
		return m.keys[m.oi]
	}
	return m.base.Key()
}

func (m *mergeIter) value() []byte {
	if m.fromOv {
		return m.vals[m.oi]
	}
	return m.base.Value()
}

// newOverlayIter opens an iterator over [lo, hi) of an overlaid snapshot;
// a plain one when the overlay holds no key in the range.
func (s *Snapshot) newOverlayIter(lo, hi []byte) (*Iter, error) {
	it, err := s.s.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return nil, err
	}
	keys, vals := s.ov.rangeCopy(lo, hi)
	if len(keys) == 0 {
		return &Iter{it: it}, nil
	}
	return &Iter{it: it, m: &mergeIter{base: it, keys: keys, vals: vals}}, nil
}
