package query

import (
	"math"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/geo"
)

// Geo operators: $geoWithin (and its old name $within) and
// $geoIntersects are evaluated here, exactly, with or without an index;
// $near and $nearSphere only parse here and match any document with a
// location: their distance bounds and order are the executor's (FindNear),
// as MongoDB's GeoNearMatchExpression leaves them to the GEO_NEAR stage.

// parseGeoOp parses $geoWithin, $within and $geoIntersects.
func parseGeoOp(name string, arg any) (opSpec, error) {
	switch name {
	case "$geoWithin", "$within":
		r, err := geo.ParseWithin(arg)
		if err != nil {
			return opSpec{}, badValue("%v", err)
		}
		return opSpec{m: geoMatcher{within: r}, noExpand: true}, nil
	case "$geoIntersects":
		g, err := geo.ParseIntersects(arg)
		if err != nil {
			return opSpec{}, badValue("%v", err)
		}
		return opSpec{m: geoMatcher{intersects: g}, noExpand: true}, nil
	}
	return opSpec{}, badValue("unknown operator: %s", name)
}

// hasNear reports an operator document holding $near or $nearSphere.
func hasNear(ops bson.D) bool {
	for _, e := range ops {
		if e.Key == "$near" || e.Key == "$nearSphere" {
			return true
		}
	}
	return false
}

// parseNearOps parses {$near: ..., $maxDistance, $minDistance}.
// TODO(#14): refuse $near under $not/$elemMatch and in
// partialFilterExpression as MongoDB does (here it matches any location).
func parseNearOps(ops bson.D) ([]opSpec, error) {
	if _, err := ParseNear(ops); err != nil {
		return nil, err
	}
	return []opSpec{{m: geoMatcher{}, noExpand: true}}, nil
}

// ParseNear reads a path's $near/$nearSphere operator document.
func ParseNear(ops bson.D) (*geo.Near, error) {
	n, err := geo.ParseNearOp(ops)
	if err != nil {
		return nil, badValue("%v", err)
	}
	if err := n.Validate(); err != nil {
		return nil, badValue("%v", err)
	}
	return n, nil
}

// geoMatcher tests the location(s) at a path: a GeoJSON object, a legacy
// pair, or an array of either (matching when one element does). With
// neither region nor geometry it is $near's: any location matches.
type geoMatcher struct {
	within     *geo.Region
	intersects *geo.Geometry
}

func (m geoMatcher) matchValue(v any, missing bool) bool {
	if missing {
		return false
	}
	return EachLocation(v, func(g *geo.Geometry) bool {
		switch {
		case m.within != nil:
			return m.within.Contains(g)
		case m.intersects != nil:
			return geo.Intersects(g, m.intersects)
		}
		return true
	})
}

// maxLocations bounds the elements of a location array looked at.
const maxLocations = 100000

// EachLocation calls fn on every location v holds until fn returns true,
// and reports whether one did. Values that are no location are skipped.
func EachLocation(v any, fn func(*geo.Geometry) bool) bool {
	switch t := v.(type) {
	case bson.D:
		g, err := geo.Parse(t)
		return err == nil && fn(g)
	case bson.A:
		if g, err := geo.ParseLegacy(t); err == nil {
			return fn(g)
		}
		for i, e := range t {
			if i >= maxLocations {
				return false
			}
			switch e.(type) {
			case bson.D, bson.A:
				if g, err := geo.Parse(e); err == nil && fn(g) {
					return true
				}
			}
		}
	}
	return false
}

// ErrNearInMatch refuses $near/$nearSphere where documents are not read
// through a geo index ($match, countDocuments), as MongoDB does.
func ErrNearInMatch(filter bson.D) error {
	if mentionsNear(filter, 0) {
		return badValue("$geoNear, $near, and $nearSphere are not allowed in this context, as these operators require sorting geospatial data. If you do not need sort, consider using $geoWithin instead.")
	}
	return nil
}

// mentionsNear looks for $near/$nearSphere anywhere under v (bounded depth).
func mentionsNear(v any, depth int) bool {
	if depth > maxDepth+2 {
		return false
	}
	switch t := v.(type) {
	case bson.D:
		for _, e := range t {
			if e.Key == "$near" || e.Key == "$nearSphere" || e.Key == "$geoNear" || mentionsNear(e.Value, depth+1) {
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

// NearOrder returns, for a filter with a top-level $near/$nearSphere (or
// one in a top-level $and), its path and a function giving a document's
// distance from the origin (+Inf without a location): what merging
// several shards' nearest-first results needs. ok is false otherwise.
// Legacy $near orders by flat distance (a 2dsphere index on the shards
// measures radians instead; the order differs only far from the equator).
func NearOrder(filter bson.D) (path string, dist func(bson.D) float64, ok bool) {
	ops := nearOps(filter, 0)
	if ops == nil {
		return "", nil, false
	}
	n, err := geo.ParseNearOp(ops.Value.(bson.D))
	if err != nil {
		return "", nil, false
	}
	w := newWalker(ops.Key, false)
	return ops.Key, func(doc bson.D) float64 {
		best := math.Inf(1)
		w.walk(doc, func(v any, missing bool, _ int) bool {
			if !missing {
				EachLocation(v, func(g *geo.Geometry) bool {
					best = math.Min(best, n.Distance(g))
					return false
				})
			}
			return false
		})
		return best
	}, true
}

// nearOps finds {path: {$near...}} among the top-level conjuncts.
func nearOps(filter bson.D, depth int) *bson.E {
	for i, e := range filter {
		if arr, ok := e.Value.(bson.A); ok && e.Key == "$and" && depth < maxDepth {
			for _, c := range arr {
				if d, ok := c.(bson.D); ok {
					if found := nearOps(d, depth+1); found != nil {
						return found
					}
				}
			}
		}
		if d, ok := e.Value.(bson.D); ok && !strings.HasPrefix(e.Key, "$") && hasNear(d) {
			return &filter[i]
		}
	}
	return nil
}
