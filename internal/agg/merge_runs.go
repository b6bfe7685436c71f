package agg

import (
	"container/heap"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The merge's sources are Iterators: a run on disk (runReader), or the
// documents still in memory (iterx.Consume, which drops its references as
// it goes so they can be collected), each in the run's order.

// mergeItem is the head of one source.
type mergeItem[K any] struct {
	doc bson.D
	key K
	src int
}

// merger is a k-way merge of sorted sources by key. Equal keys come out
// in source order, so merging runs written in input order is stable.
type merger[K any] struct {
	srcs  []Iterator
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
func newMerger[K any](srcs []Iterator, keyOf func(bson.D) K, cmp func(a, b K) int) (*merger[K], error) {
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
	d, ok, err := pull(m.srcs[i])
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
	d, ok, err := pull(m.srcs[it.src])
	if err != nil {
		return it, true, err
	}
	if ok {
		heap.Push(&m.h, mergeItem[K]{doc: d, key: m.keyOf(d), src: it.src})
	}
	return it, true, nil
}

// close closes every source; it returns the first error.
func (m *merger[K]) close() error {
	m.h.items = nil
	return closeAll(m.srcs)
}

// closeAll closes every iterator of its; it returns the first error.
func closeAll(its []Iterator) error {
	var first error
	for _, it := range its {
		if err := it.Close(); first == nil {
			first = err
		}
	}
	return first
}

// openRuns opens a reader on every run, followed by the sources in extra.
func openRuns(runs []*runFile, extra ...Iterator) ([]Iterator, error) {
	srcs := make([]Iterator, 0, len(runs)+len(extra))
	for _, r := range runs {
		rd, err := r.open()
		if err != nil {
			_ = closeAll(srcs)
			return nil, err
		}
		srcs = append(srcs, rd)
	}
	return append(srcs, extra...), nil
}
