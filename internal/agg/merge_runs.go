package agg

import (
	"container/heap"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// source yields one run's documents in the run's order.
type source interface {
	next() (bson.D, bool, error)
	close()
}

func (r *runReader) asSource() source { return r }

// sliceSource yields documents already in memory; it drops its
// references as it goes so they can be collected.
type sliceSource struct {
	docs []bson.D
	i    int
}

func (s *sliceSource) next() (bson.D, bool, error) {
	if s.i >= len(s.docs) {
		return nil, false, nil
	}
	d := s.docs[s.i]
	s.docs[s.i] = nil
	s.i++
	return d, true, nil
}

func (s *sliceSource) close() {}

// mergeItem is the head of one source.
type mergeItem[K any] struct {
	doc bson.D
	key K
	src int
}

// merger is a k-way merge of sorted sources by key. Equal keys come out
// in source order, so merging runs written in input order is stable.
type merger[K any] struct {
	srcs  []source
	keyOf func(bson.D) K
	h     mergeHeap[K]
}

type mergeHeap[K any] struct {
	items []mergeItem[K]
	cmp   func(a, b K) int
}

func (h *mergeHeap[K]) Len() int { return len(h.items) }
func (h *mergeHeap[K]) Less(i, j int) bool {
	if c := h.cmp(h.items[i].key, h.items[j].key); c != 0 {
		return c < 0
	}
	return h.items[i].src < h.items[j].src
}
func (h *mergeHeap[K]) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *mergeHeap[K]) Push(x any)    { h.items = append(h.items, x.(mergeItem[K])) }
func (h *mergeHeap[K]) Pop() any {
	it := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return it
}

// newMerger reads the first document of every source. On error it closes
// them all.
func newMerger[K any](srcs []source, keyOf func(bson.D) K, cmp func(a, b K) int) (*merger[K], error) {
	m := &merger[K]{srcs: srcs, keyOf: keyOf, h: mergeHeap[K]{cmp: cmp}}
	for i := range srcs {
		if err := m.advance(i); err != nil {
			m.close()
			return nil, err
		}
	}
	heap.Init(&m.h)
	return m, nil
}

// advance pushes source i's next document, if any.
func (m *merger[K]) advance(i int) error {
	d, ok, err := m.srcs[i].next()
	if err != nil || !ok {
		return err
	}
	m.h.items = append(m.h.items, mergeItem[K]{doc: d, key: m.keyOf(d), src: i})
	return nil
}

// peek returns the smallest head, if any.
func (m *merger[K]) peek() (*mergeItem[K], bool) {
	if len(m.h.items) == 0 {
		return nil, false
	}
	return &m.h.items[0], true
}

// pop removes and returns the smallest head and reads its source's next.
func (m *merger[K]) pop() (mergeItem[K], bool, error) {
	if len(m.h.items) == 0 {
		return mergeItem[K]{}, false, nil
	}
	it := heap.Pop(&m.h).(mergeItem[K])
	d, ok, err := m.srcs[it.src].next()
	if err != nil {
		return it, true, err
	}
	if ok {
		heap.Push(&m.h, mergeItem[K]{doc: d, key: m.keyOf(d), src: it.src})
	}
	return it, true, nil
}

func (m *merger[K]) close() {
	for _, s := range m.srcs {
		s.close()
	}
	m.h.items = nil
}

// openRuns opens a reader on every run, followed by the sources in extra.
func openRuns(runs []*runFile, extra ...source) ([]source, error) {
	srcs := make([]source, 0, len(runs)+len(extra))
	for _, r := range runs {
		rd, err := r.open()
		if err != nil {
			for _, s := range srcs {
				s.close()
			}
			return nil, err
		}
		srcs = append(srcs, rd.asSource())
	}
	return append(srcs, extra...), nil
}
