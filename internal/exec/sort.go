package exec

import (
	"container/heap"
	"sort"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
)

// maxSortBytes is MongoDB's internalQueryMaxBlockingSortMemoryUsageBytes.
const maxSortBytes = 100 << 20

// sortRows drains in and returns its rows in s order. With topK > 0 only
// the first topK rows are kept (a bounded heap: sort + limit).
func sortRows(in Iterator, s *query.Sort, topK int64, allowDiskUse bool) (Iterator, error) {
	defer in.Close()
	h := &rowHeap{s: s}
	var bytes int
	for {
		r, ok := in.Next()
		if !ok {
			if err := in.Err(); err != nil {
				return nil, err
			}
			break
		}
		if _, err := r.decoded(); err != nil {
			return nil, err
		}
		bytes += len(r.Raw) + 64
		if topK > 0 {
			heap.Push(h, r)
			if int64(h.Len()) > topK {
				heap.Pop(h)
			}
			continue
		}
		if bytes > maxSortBytes && !allowDiskUse {
			return nil, mongoerr.New(mongoerr.QueryExceededMemoryLimitNoDiskUseAllowed, "Executor error during find command :: caused by :: Sort exceeded memory limit of %d bytes, but did not opt in to external sorting.", maxSortBytes)
		}
		h.rows = append(h.rows, r)
	}
	rs := h.rows
	sort.SliceStable(rs, func(i, j int) bool { return s.Compare(rs[i].Doc, rs[j].Doc) < 0 })
	return rows(rs), nil
}

// rowHeap is a max-heap by sort order, so Pop drops the last row.
type rowHeap struct {
	rows []*Row
	s    *query.Sort
}

func (h *rowHeap) Len() int           { return len(h.rows) }
func (h *rowHeap) Less(i, j int) bool { return h.s.Compare(h.rows[i].Doc, h.rows[j].Doc) > 0 }
func (h *rowHeap) Swap(i, j int)      { h.rows[i], h.rows[j] = h.rows[j], h.rows[i] }
func (h *rowHeap) Push(x any)         { h.rows = append(h.rows, x.(*Row)) }
func (h *rowHeap) Pop() any {
	r := h.rows[len(h.rows)-1]
	h.rows = h.rows[:len(h.rows)-1]
	return r
}
