package geo

import (
	"sort"

	"github.com/golang/geo/s2"
)

// Index levels of a 2dsphere index (MongoDB's defaults: cells of about
// 100 km down to about 500 m average edge).
var (
	FinestLevel   = s2.AvgEdgeMetric.ClosestLevel(500 / EarthRadiusMeters)
	CoarsestLevel = s2.AvgEdgeMetric.ClosestLevel(100 * 1000 / EarthRadiusMeters)
)

// queryMaxCells bounds the covering of a query region.
const queryMaxCells = 20

// CellKeys returns the 2dsphere keys (S2 cell ids as NumberLong) of g,
// sorted and distinct.
func CellKeys(g *Geometry) []int64 {
	seen := map[s2.CellID]bool{}
	for _, p := range g.Points {
		seen[s2.CellIDFromLatLng(s2.LatLngFromPoint(p)).Parent(FinestLevel)] = true
	}
	rc := &s2.RegionCoverer{MinLevel: CoarsestLevel, MaxLevel: FinestLevel, LevelMod: 1, MaxCells: MaxKeysPerInsert}
	for _, l := range g.Lines {
		for _, c := range rc.Covering(l) {
			seen[c] = true
		}
	}
	for _, p := range g.Polygons {
		for _, c := range rc.Covering(p) {
			seen[c] = true
		}
	}
	out := make([]int64, 0, len(seen))
	for c := range seen {
		out = append(out, int64(c))
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// KeyRange is an inclusive range of 2dsphere key values.
type KeyRange struct{ Lo, Hi int64 }

// CoverRanges returns the key ranges an index scan for region must read:
// every covering cell's descendants and its ancestors down to
// CoarsestLevel (stored shapes may be covered by coarser cells), sorted
// and merged. The covering may use cells coarser than CoarsestLevel (a
// large region then needs few cells): their ranges hold every stored key
// under them.
func CoverRanges(region s2.Region) []KeyRange {
	rc := &s2.RegionCoverer{MinLevel: 0, MaxLevel: FinestLevel, LevelMod: 1, MaxCells: queryMaxCells}
	var out []KeyRange
	for _, c := range rc.Covering(region) {
		out = append(out, KeyRange{int64(c.RangeMin()), int64(c.RangeMax())})
		for l := c.Level() - 1; l >= CoarsestLevel; l-- {
			a := int64(c.Parent(l))
			out = append(out, KeyRange{a, a})
		}
	}
	return mergeRanges(out)
}

func mergeRanges(rs []KeyRange) []KeyRange {
	sort.Slice(rs, func(i, j int) bool { return rs[i].Lo < rs[j].Lo })
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && r.Lo <= out[n-1].Hi+1 && out[n-1].Hi != int64(^uint64(0)>>1) {
			if r.Hi > out[n-1].Hi {
				out[n-1].Hi = r.Hi
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// S2Region is g as a region to cover (points as their leaf cells).
func (g *Geometry) S2Region() s2.Region {
	u := make(s2.RegionUnion, 0, len(g.Points)+len(g.Lines)+len(g.Polygons))
	for _, p := range g.Points {
		u = append(u, s2.CellFromPoint(p))
	}
	for _, l := range g.Lines {
		u = append(u, l)
	}
	for _, p := range g.Polygons {
		u = append(u, p)
	}
	return u
}
