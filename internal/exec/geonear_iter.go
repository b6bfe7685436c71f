package exec

import (
	"math"
	"sort"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/geo"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// nearGrowth is the factor by which each round's radius grows; with the
// start radii of geo.Near.StartRadius a search ends within about ten
// rounds (1 km to half the Earth's circumference; 1/16384 of a 2d grid
// to all of it).
const nearGrowth = 4

// nearIter yields a GEO_NEAR plan's documents nearest first, in rounds:
// round k scans the index ranges covering the disc of radius r_k around
// the origin and yields, sorted, the documents not yet yielded whose
// distance is at most r_k (and within [$minDistance, $maxDistance]);
// r grows by nearGrowth until it reaches $maxDistance or covers the whole
// index. A document at distance d <= r_k is found by round k (its keys
// intersect the disc's covering), and every document yielded before has
// distance <= r_(k-1) < ... so the order is exact; a limit stops after
// the rounds it needs, which is what makes "the 10 nearest" cheap.
// Memory is one round's documents (bounded by maxNearBytes) and the ids
// and distances of the documents read but not yet yielded.
type nearIter struct {
	col     *catalog.Collection
	plan    *Plan
	snap    *catalog.Snapshot
	r       float64
	done    bool
	emitted map[string]bool
	later   map[string]float64 // distances of documents read beyond an earlier round's radius
	buf     []nearRow
	pos     int
	err     error
}

func (it *nearIter) Next() (*Row, bool) {
	for it.err == nil {
		if it.pos < len(it.buf) {
			r := it.buf[it.pos].row
			it.buf[it.pos] = nearRow{}
			it.pos++
			return r, true
		}
		if it.done {
			return nil, false
		}
		it.err = it.round()
	}
	return nil, false
}

func (it *nearIter) Err() error { return it.err }

func (it *nearIter) Close() error {
	it.done, it.buf, it.pos = true, nil, 0
	return nil
}

// round scans the disc of radius it.r (all of the index in the last
// round) and buffers the new documents within it, nearest first.
func (it *nearIter) round() error {
	n := it.plan.Geo.near
	ivs, final := it.disc(math.Min(it.r, n.Max))
	limit := it.r
	if final || it.r >= n.Max {
		final, limit = true, math.Inf(1)
	}
	scan := &multiScan{col: it.col, plan: &Plan{Index: it.plan.Index, Intervals: ivs}, snap: it.snap}
	defer scan.Close()
	seen := map[string]bool{}
	var out []nearRow
	bytes := 0
	for r, ok := scan.Next(); ok; r, ok = scan.Next() {
		id := string(bson.Raw(r.Raw).Lookup("_id").Value)
		if it.emitted[id] || seen[id] {
			continue
		}
		seen[id] = true
		d, known := it.later[id]
		if !known {
			doc, err := r.decoded()
			if err != nil {
				return err
			}
			d = nearDistance(it.plan.Geo, doc)
		}
		if math.IsInf(d, 1) || !n.InRange(d) {
			continue
		}
		if d > limit {
			if it.later == nil {
				it.later = map[string]float64{}
			}
			it.later[id] = d
			continue
		}
		if bytes += len(r.Raw); bytes > maxNearBytes {
			return mongoerr.New(mongoerr.QueryExceededMemoryLimitNoDiskUseAllowed,
				"geo near candidates exceeded memory limit of %d bytes", maxNearBytes)
		}
		out = append(out, nearRow{row: r, dist: d})
	}
	if err := scan.Err(); err != nil {
		return err
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].dist < out[j].dist })
	for _, nr := range out {
		id := string(bson.Raw(nr.row.Raw).Lookup("_id").Value)
		it.emitted[id] = true
		delete(it.later, id)
	}
	it.buf, it.pos, it.done = out, 0, final
	it.r *= nearGrowth
	return nil
}

// disc returns the index intervals covering the disc of radius r around
// the origin, and true when they are the whole index (for the prefixes).
func (it *nearIter) disc(r float64) ([]interval, bool) {
	s := it.plan.Geo
	var rs []geo.KeyRange
	switch s.kind {
	case geoNear2dsphere:
		c, ok := s.near.CapOf(r)
		if !ok || s.prefixes == nil {
			return geoIntervals(s.prefixes, nil), true
		}
		rs = geo.CoverRanges(c)
	default:
		x0, y0, x1, y1, ok := s.near.FlatBoxOf(r)
		if !ok || x0 <= s.grid.Min && y0 <= s.grid.Min && x1 >= s.grid.Max && y1 >= s.grid.Max {
			return geoIntervals(s.prefixes, nil), true
		}
		rs = s.grid.CoverBox(x0, y0, x1, y1)
	}
	return geoIntervals(s.prefixes, rs), false
}
