package balancer

import (
	"cmp"
	"slices"

	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// LoadColl is one collection as load planning sees it: its routing table
// and, per shard, the operations per second and split key it reported.
type LoadColl struct {
	CM    *routing.ChunkManager
	Stats map[string]CollStats
}

// PlanLoad adds the load-based migrations of a round to those already
// planned (busy holds their shards): for each collection, a shard serving
// at least hotOpsPerSec of its operations whose sampled split key falls
// inside one of its chunks gives the part of that chunk from the key on
// to the free active shard serving the fewest of the collection's
// operations, when that shard serves less than half as many. A split key
// on the chunk's min moves the whole chunk (the lower half of the load is
// in the chunk below). It keeps Plan's invariants: a shard in one
// migration per round, never to a draining shard, deterministic.
func PlanLoad(shards []Shard, colls []LoadColl, hotOpsPerSec float64, busy map[string]bool) []Migration {
	if hotOpsPerSec <= 0 {
		return nil
	}
	r := newRound(shards)
	for id := range busy {
		r.busy[id] = true
	}
	colls = slices.Clone(colls)
	slices.SortFunc(colls, func(a, b LoadColl) int { return cmp.Compare(a.CM.Collection().NS, b.CM.Collection().NS) })
	for _, c := range colls {
		r.loadSplit(c, hotOpsPerSec)
	}
	return r.out
}

func (r *round) loadSplit(c LoadColl, hot float64) {
	for _, from := range r.byLoad(c, true) {
		st := c.Stats[from]
		if st.OpsPerSec < hot || st.SplitKey == nil {
			continue
		}
		ch, err := c.CM.FindChunk(st.SplitKey)
		if err != nil || ch.Shard != from {
			continue // the shard's sample is older than the routing table
		}
		to := ""
		for _, id := range r.byLoad(c, false) {
			if id != from && c.Stats[id].OpsPerSec*2 < st.OpsPerSec {
				to = id
				break
			}
		}
		if to == "" {
			continue
		}
		m := Migration{NS: c.CM.Collection().NS, Chunk: ch, From: from, To: to, Reason: Load}
		if key.Compare(st.SplitKey, ch.Min) != 0 {
			m.SplitAt = st.SplitKey
		}
		r.add(m)
	}
}

// byLoad lists the free active shards by the collection's operations per
// second, busiest first when desc (ties: ID).
func (r *round) byLoad(c LoadColl, desc bool) []string {
	var ids []string
	for _, id := range r.active {
		if !r.busy[id] {
			ids = append(ids, id)
		}
	}
	slices.SortStableFunc(ids, func(a, b string) int {
		x := cmp.Compare(c.Stats[a].OpsPerSec, c.Stats[b].OpsPerSec)
		if desc {
			return -x
		}
		return x
	})
	return ids
}
