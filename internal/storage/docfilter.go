package storage

import "hash/maphash"

// docFilter is a Bloom filter of every document key a collection has held
// since it was empty in this process, so that an insert of an _id below
// the collection's bound (docmax.go) that the filter does not hold needs
// no existence probe either (YCSB's hashed keys, many clients' ObjectIds).
//
// Invariants:
//   - Exact for absence: a key noted (add) is always reported (mayHold);
//     only "may hold" can be wrong (false positives, then the probe is
//     made). Keys are added before their batch applies (docMax.noteDocs)
//     and never removed: deletes and drops leave their bits.
//   - A filter is made when docMax first fills the collection's bound,
//     when no batch writing the collection can be between noting its keys
//     and applying them (it would have filled the bound): the keys then in
//     the store are added at once (startFilter; a collection holding more
//     than fillFilterMax gets no filter), every later one by noteDocs.
//   - Memory: segments double in size (scalable Bloom filter, ~10 bits and
//     7 probes per key, ~1 % false positives each); a filter that would
//     pass maxFilterKeys keys, or the engine-wide byte budget, is dropped
//     for good (docMax marks the collection unfiltered) and every later
//     probe for it is made.
type docFilter struct {
	seed maphash.Seed
	segs []filterSeg
	keys int // keys added to all segments
}

type filterSeg struct {
	bits []uint64
	cap  int // keys this segment takes before the next one starts
	n    int // keys added
}

const (
	filterFirstCap = 4096    // keys in the first segment
	filterBitsKey  = 10      // bits per key
	filterProbes   = 7       // bit probes per key
	maxFilterKeys  = 8 << 20 // keys per collection (~10 MB of bits)
	// maxFilterBytes bounds the bytes all filters of an engine hold.
	maxFilterBytes = 64 << 20
)

// fillFilterMax bounds the document keys startFilter reads from the store
// (once per collection and process, under docMax.mu: ~10-30 ms); a
// variable for tests.
var fillFilterMax = 100_000

func newDocFilter() *docFilter { return &docFilter{seed: maphash.MakeSeed()} }

// startFilter gives collection id a filter of the document keys the store
// holds (none when !held). It reads up to fillFilterMax keys at once; a
// collection holding more gets its filter completed in the background
// (docfilter_fill.go) and is unfiltered until then. A failed read or a
// spent byte budget leaves the collection unfiltered: every probe below
// its bound is made. REQUIRES: d.mu, called where boundLocked fills id's
// bound (no batch writing id has noted its keys yet).
func (d *docMax) startFilter(e *Engine, id uint32, held bool) {
	f := newDocFilter()
	var resume []byte
	if held {
		var ok bool
		if resume, ok = d.fillFilter(e, id, f); !ok {
			return
		}
	}
	for _, s := range f.segs {
		d.fBytes += len(s.bits) * 8
	}
	if resume != nil {
		d.fillInBackground(e, id, f, resume)
		return
	}
	if d.f == nil {
		d.f = map[uint32]*docFilter{}
	}
	d.f[id] = f
}

// fillFilter adds up to fillFilterMax of collection id's stored document
// keys to f; resume is the key to continue after when there are more, and
// ok is false when they cannot be read or held.
func (d *docMax) fillFilter(e *Engine, id uint32, f *docFilter) (resume []byte, ok bool) {
	lo := DocPrefix(id)
	it, err := e.NewIter(lo, PrefixEnd(lo))
	if err != nil {
		return nil, false
	}
	defer it.Close()
	n, used := 0, 0
	for ok := it.First(); ok; ok = it.Next() {
		if n++; n > fillFilterMax {
			return append([]byte(nil), it.Key()...), it.Error() == nil
		}
		grew, ok := f.add(it.Key(), maxFilterBytes-d.fBytes-used)
		if !ok {
			return nil, false
		}
		used += grew
	}
	return nil, it.Error() == nil
}

// hashes returns the two halves used for double hashing.
func (f *docFilter) hashes(key []byte) (uint32, uint32) {
	h := maphash.Bytes(f.seed, key)
	return uint32(h), uint32(h>>32) | 1
}

// mayHold reports whether key may have been added.
func (f *docFilter) mayHold(key []byte) bool {
	h1, h2 := f.hashes(key)
	for i := range f.segs {
		if f.segs[i].has(h1, h2) {
			return true
		}
	}
	return false
}

// add notes key; it returns the bytes it newly allocated, or ok=false when
// the filter is full (maxFilterKeys): the caller must drop it. A key it
// may already hold is not added again (updates rewrite document keys):
// bits only get set, so mayHold stays true for it.
func (f *docFilter) add(key []byte, budget int) (grew int, ok bool) {
	if f.mayHold(key) {
		return 0, true
	}
	if len(f.segs) == 0 || f.segs[len(f.segs)-1].n >= f.segs[len(f.segs)-1].cap {
		c := filterFirstCap
		if len(f.segs) > 0 {
			c = 2 * f.segs[len(f.segs)-1].cap
		}
		words := (c*filterBitsKey + 63) / 64
		if f.keys+c > maxFilterKeys || words*8 > budget {
			return 0, false
		}
		f.segs = append(f.segs, filterSeg{bits: make([]uint64, words), cap: c})
		grew = words * 8
	}
	h1, h2 := f.hashes(key)
	s := &f.segs[len(f.segs)-1]
	s.set(h1, h2)
	s.n++
	f.keys++
	return grew, true
}

func (s *filterSeg) set(h1, h2 uint32) {
	m := uint32(len(s.bits) * 64)
	for i := uint32(0); i < filterProbes; i++ {
		b := (h1 + i*h2) % m
		s.bits[b/64] |= 1 << (b % 64)
	}
}

func (s *filterSeg) has(h1, h2 uint32) bool {
	m := uint32(len(s.bits) * 64)
	for i := uint32(0); i < filterProbes; i++ {
		b := (h1 + i*h2) % m
		if s.bits[b/64]&(1<<(b%64)) == 0 {
			return false
		}
	}
	return true
}
