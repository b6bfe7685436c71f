package exec

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/geo"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
)

// Geo plans. A filter with $near/$nearSphere (one, at the top level or
// in a top-level $and) runs as GEO_NEAR_2DSPHERE or GEO_NEAR_2D over the
// geo index of its path: the index scan (cell ranges covering the
// $maxDistance cap, else the whole index) yields candidates, each
// document's distance is computed from its locations, those outside
// [$minDistance, $maxDistance] are dropped and the rest come out nearest
// first (geonear.go). Without $near, a top-level $geoWithin or
// $geoIntersects on the first field of a 2dsphere index is an IXSCAN over
// the ranges covering its region; the matcher then decides exactly.

const (
	geoNear2dsphere = "GEO_NEAR_2DSPHERE"
	geoNear2d       = "GEO_NEAR_2D"
)

// geoNearSpec is what a GEO_NEAR plan needs besides its index scan.
type geoNearSpec struct {
	path     string
	near     *geo.Near
	kind     string   // geoNear2dsphere or geoNear2d
	prefixes [][]byte // equality prefixes before the geo field (geoPrefixes)
	grid     geo.Grid // 2d: the index's grid
}

// geoPlan returns the plan of a filter with geo operators, or nil.
func geoPlan(coll *catalog.Collection, in planInput) (*Plan, error) {
	path, ops, err := findNear(in.filter)
	if err != nil {
		return nil, err
	}
	if ops != nil {
		p, err := nearPlan(coll, in, path, ops)
		if p != nil {
			p.SortCovered = len(in.sort) == 0
		}
		return p, err
	}
	if in.hint != nil {
		return nil, nil
	}
	return regionPlan(coll, in.filter), nil
}

// findNear returns the path and operator document of the filter's $near,
// or nil; $near anywhere but the top level (or a top-level $and) is
// refused as MongoDB does.
func findNear(filter bson.D) (path string, ops bson.D, err error) {
	for _, c := range conjuncts(filter, 0) {
		if strings.HasPrefix(c.Key, "$") {
			if mentionsNear(c.Value, 0) {
				return "", nil, mongoerr.New(mongoerr.BadValue, "geoNear must be top-level expr")
			}
			continue
		}
		d, ok := c.Value.(bson.D)
		if !ok || !hasNearOp(d) {
			continue
		}
		if ops != nil {
			return "", nil, mongoerr.New(mongoerr.BadValue, "Too many geoNear expressions")
		}
		path, ops = c.Key, d
	}
	return path, ops, nil
}

// conjuncts flattens top-level $and clauses.
func conjuncts(filter bson.D, depth int) []bson.E {
	var out []bson.E
	for _, e := range filter {
		arr, isArr := e.Value.(bson.A)
		if e.Key != "$and" || !isArr || depth > 10 {
			out = append(out, e)
			continue
		}
		for _, c := range arr {
			if d, ok := c.(bson.D); ok {
				out = append(out, conjuncts(d, depth+1)...)
			}
		}
	}
	return out
}

func hasNearOp(d bson.D) bool {
	for _, e := range d {
		if e.Key == "$near" || e.Key == "$nearSphere" {
			return true
		}
	}
	return false
}

// mentionsNear looks for $near anywhere under v (bounded depth).
func mentionsNear(v any, depth int) bool {
	if depth > 20 {
		return false
	}
	switch t := v.(type) {
	case bson.D:
		for _, e := range t {
			if e.Key == "$near" || e.Key == "$nearSphere" || mentionsNear(e.Value, depth+1) {
				return true
			}
		}
	case bson.A:
		for _, e := range t {
			if mentionsNear(e, depth+1) {
				return true
			}
		}
	}
	return false
}

// nearIndex picks the geo index for a $near on path: 2d for flat legacy
// queries when there is one, else 2dsphere (turning a legacy $near
// spherical, in radians, as MongoDB does on a 2dsphere index).
func nearIndex(coll *catalog.Collection, path string, n *geo.Near) (*catalog.Index, string) {
	var sphere, flat *catalog.Index
	for _, idx := range coll.VisibleIndexes() {
		switch _, kind := idx.GeoFieldFor(path); kind {
		case "2dsphere":
			if sphere == nil {
				sphere = idx
			}
		case "2d":
			if flat == nil {
				flat = idx
			}
		}
	}
	if flat != nil && !n.GeoJSON {
		return flat, geoNear2d
	}
	if sphere != nil {
		n.Sphere = true
		return sphere, geoNear2dsphere
	}
	return nil, ""
}

func nearPlan(coll *catalog.Collection, in planInput, path string, ops bson.D) (*Plan, error) {
	n, err := query.ParseNear(ops)
	if err != nil {
		return nil, err
	}
	idx, kind := nearIndex(coll, path, n)
	if idx == nil {
		return nil, mongoerr.New(mongoerr.BadValue,
			"error processing query: ns=%s planner returned error :: caused by :: unable to find index for $geoNear query", coll.NS())
	}
	if err := n.Validate(); err != nil {
		return nil, mongoerr.New(mongoerr.BadValue, "%v", err)
	}
	pos, _ := idx.GeoFieldFor(path)
	preds := predicates(in.filter)
	prefixes := geoPrefixes(idx, pos, preds)
	var rs []geo.KeyRange
	if c, ok := n.Cap(); ok && kind == geoNear2dsphere {
		rs = geo.CoverRanges(c)
	}
	if x0, y0, x1, y1, ok := n.FlatBox(); ok && kind == geoNear2d {
		rs = idx.GeoGrid().CoverBox(x0, y0, x1, y1)
	}
	ivs := geoIntervals(prefixes, rs)
	// TODO(#14): a spherical $near over a 2d index scans the whole index.
	spec := &geoNearSpec{path: path, near: n, kind: kind, prefixes: prefixes, grid: idx.GeoGrid()}
	return &Plan{Kind: kind, Index: idx, Intervals: ivs, SortCovered: true,
		Bounds: geoBounds(idx, pos, preds, prefixes, rs), Geo: spec}, nil
}
