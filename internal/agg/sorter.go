package agg

import (
	"cmp"
	"container/heap"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/iterx"
	"github.com/relaydb/relaydb/internal/query"
)

// sorter orders documents by a sort spec, stably. It holds them in memory
// while they fit in the sort limit; past it, it writes them as a sorted
// run (allowDiskUse) or fails with 292. The output merges the runs and
// what is left in memory. With limit > 0 only the first limit documents
// are kept: the buffer is a max-heap whose largest entry is dropped on
// overflow (top-k), so memory stays at limit documents.
//
// Invariant: every run, and the buffer, holds a contiguous stretch of the
// input, earlier stretches in earlier runs; merging by (key, run index)
// is therefore stable.
type sorter struct {
	s     *query.Sort
	limit int64
	lim   *limits
	spill spillSet
	mem   []sortEntry // sorted by (key, seq), or a max-heap when limit > 0
	bytes int64
	seq   int64
}

type sortEntry struct {
	doc  bson.D
	key  query.Key
	seq  int64 // input position, for stability
	size int64
}

func newSorter(s *query.Sort, limit int64, lim *limits) *sorter {
	return &sorter{s: s, limit: limit, lim: lim, spill: spillSet{l: lim}}
}

func (s *sorter) compare(a, b *sortEntry) int {
	if c := s.s.CompareKeys(a.key, b.key); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

// add takes one input document.
func (s *sorter) add(d bson.D) error {
	e := sortEntry{doc: d, key: s.s.Key(d), seq: s.seq, size: docSize(d) + itemOverhead}
	s.seq++
	s.bytes += e.size
	if s.limit > 0 {
		heap.Push((*topK)(s), e)
		if int64(len(s.mem)) > s.limit {
			s.bytes -= heap.Pop((*topK)(s)).(sortEntry).size
		}
	} else {
		s.mem = append(s.mem, e)
	}
	if s.bytes > s.lim.sortBytes {
		return s.spillMem()
	}
	return nil
}

func (s *sorter) sortMem() {
	slices.SortFunc(s.mem, func(a, b sortEntry) int { return s.compare(&a, &b) })
}

// spillMem writes the buffer as a sorted run and empties it.
func (s *sorter) spillMem() error {
	if !s.lim.allowDiskUse {
		return sortLimitErr(s.lim.sortBytes)
	}
	s.sortMem()
	i := 0
	_, err := s.spill.write("sort", iterx.Func(func() (bson.D, bool, error) {
		if i >= len(s.mem) {
			return nil, false, nil
		}
		i++
		return s.mem[i-1].doc, true, nil
	}, nil))
	clear(s.mem)
	s.mem, s.bytes = s.mem[:0], 0
	if err != nil {
		return err
	}
	return s.spill.compact("sort", s.merge)
}

// merge is a mergeFunc for sorted runs of documents.
func (s *sorter) merge(srcs []Iterator) (Iterator, error) {
	m, err := newMerger(srcs, s.s.Key, s.s.CompareKeys)
	if err != nil {
		return nil, err
	}
	return iterx.Func(func() (bson.D, bool, error) {
		it, ok, err := m.pop()
		return it.doc, ok, err
	}, m.close), nil
}

// drain adds every document of in.
func (s *sorter) drain(in Iterator) error {
	for {
		d, ok, err := pull(in)
		if err != nil || !ok {
			return err
		}
		if err := s.add(d); err != nil {
			return err
		}
	}
}

// output returns the sorted documents. It owns the runs: closing it (or
// reading it to the end) removes them.
func (s *sorter) output() (Iterator, error) {
	s.sortMem()
	docs := make([]bson.D, len(s.mem))
	for i := range s.mem {
		docs[i] = s.mem[i].doc
	}
	s.mem = nil
	if len(s.spill.runs) == 0 {
		return Slice(docs), nil
	}
	srcs, err := openRuns(s.spill.runs, iterx.Consume(docs))
	if err != nil {
		return nil, err
	}
	merged, err := s.merge(srcs)
	if err != nil {
		return nil, err
	}
	n := int64(0)
	return iterx.Func(func() (bson.D, bool, error) {
		if s.limit > 0 && n >= s.limit {
			return nil, false, nil
		}
		n++
		return pull(merged)
	}, merged.Close), nil
}

// topK views a sorter's buffer as a max-heap by (key, seq): its root is
// the entry to drop first.
type topK sorter

func (h *topK) Len() int           { return len(h.mem) }
func (h *topK) Less(i, j int) bool { return (*sorter)(h).compare(&h.mem[i], &h.mem[j]) > 0 }
func (h *topK) Swap(i, j int)      { h.mem[i], h.mem[j] = h.mem[j], h.mem[i] }
func (h *topK) Push(x any)         { h.mem = append(h.mem, x.(sortEntry)) }
func (h *topK) Pop() any {
	e := h.mem[len(h.mem)-1]
	h.mem[len(h.mem)-1] = sortEntry{}
	h.mem = h.mem[:len(h.mem)-1]
	return e
}

// sortIter sorts in through a sorter.
func sortIter(in Iterator, s *query.Sort, limit int64, lim *limits) Iterator {
	srt := newSorter(s, limit, lim)
	return lazyIter(in, func() (Iterator, error) {
		if err := srt.drain(in); err != nil {
			return nil, err
		}
		return srt.output()
	}, srt.spill.removeAll)
}

// lazyIter runs build on the first Next (build reads in) and then yields
// build's iterator. cleanup releases what build holds (spill files): it
// runs when the output is exhausted, on any error, and on Close.
func lazyIter(in Iterator, build func() (Iterator, error), cleanup func()) Iterator {
	z := &lazy{in: in, build: build, cleanup: cleanup}
	return z
}

type lazy struct {
	in      Iterator
	build   func() (Iterator, error)
	cleanup func()
	out     Iterator
	err     error
	done    bool
}

func (z *lazy) Next() (bson.D, bool) {
	if z.done {
		return nil, false
	}
	if z.out == nil {
		out, err := z.build()
		_ = z.in.Close()
		if err != nil {
			z.finish(err)
			return nil, false
		}
		z.out = out
	}
	d, ok := z.out.Next()
	if !ok {
		z.finish(z.out.Err())
		return nil, false
	}
	return d, true
}

func (z *lazy) Err() error { return z.err }

func (z *lazy) finish(err error) {
	z.done, z.err = true, err
	if z.out != nil {
		_ = z.out.Close()
	}
	z.cleanup()
}

func (z *lazy) Close() error {
	err := z.in.Close()
	if !z.done {
		z.finish(nil)
	}
	return err
}
