package exec

import (
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/golang/geo/s2"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/geo"
	"github.com/relaydb/relaydb/internal/storage/keystring"
)

// regionPlan returns an IXSCAN for the filter's first top-level
// $geoWithin/$geoIntersects on the first field of a geo index: over a
// 2dsphere index the ranges covering a spherical region, over a 2d index
// the geohash cells covering a flat region's box; nil when none applies.
func regionPlan(coll *catalog.Collection, filter bson.D) *Plan {
	for _, c := range conjuncts(filter, 0) {
		if strings.HasPrefix(c.Key, "$") {
			continue
		}
		region, flat := geoRegion(c.Value)
		if region == nil && flat == nil {
			continue
		}
		for _, idx := range coll.Indexes() {
			if idx.Key[0].Key != c.Key || idx.Partial != nil && !implies(predicates(filter), idx.Partial) {
				continue
			}
			var rs []geo.KeyRange
			switch kind := catalog.GeoKind(idx.Key[0].Value); {
			case kind == "2dsphere" && region != nil:
				rs = geo.CoverRanges(region)
			case kind == "2d" && flat != nil:
				x0, y0, x1, y1, _ := flat.FlatBox()
				rs = idx.GeoGrid().CoverBox(x0, y0, x1, y1)
			default:
				continue
			}
			return &Plan{Kind: "IXSCAN", Index: idx, Intervals: cellIntervals(rs), Bounds: cellBounds(idx, rs)}
		}
	}
	// TODO(#14): 2dsphere fields after the first of a compound index.
	return nil
}

// geoRegion returns the spherical region of {$geoWithin|$geoIntersects:
// ...}, or its flat region ($box, $center, $polygon).
func geoRegion(v any) (s2.Region, *geo.Region) {
	ops, ok := v.(bson.D)
	if !ok {
		return nil, nil
	}
	for _, op := range ops {
		switch op.Key {
		case "$geoWithin", "$within":
			r, err := geo.ParseWithin(op.Value)
			if err != nil {
				continue
			}
			if r.Flat() {
				return nil, r
			}
			return r.S2Region(), nil
		case "$geoIntersects":
			if g, err := geo.ParseIntersects(op.Value); err == nil {
				return g.S2Region(), nil
			}
		}
	}
	return nil, nil
}

// cellIntervals turns key ranges into index byte intervals (each range
// with every suffix of later fields).
func cellIntervals(rs []geo.KeyRange) []interval {
	out := make([]interval, 0, len(rs))
	for _, r := range rs {
		lo := keystring.AppendValue(nil, r.Lo, false)
		hi := prefixEnd(keystring.AppendValue(nil, r.Hi, false))
		out = append(out, interval{lo: lo, hi: hi})
	}
	return out
}

// cellBounds is explain's indexBounds of a geo scan: the cell ranges of
// the geo field (all of it when rs is nil), [MinKey, MaxKey] for others.
func cellBounds(idx *catalog.Index, rs []geo.KeyRange) bson.D {
	out := bson.D{}
	for i, f := range idx.Key {
		b := bson.A{"[MinKey, MaxKey]"}
		if i == 0 && catalog.GeoKind(f.Value) != "" && rs != nil {
			b = make(bson.A, 0, len(rs))
			for _, r := range rs {
				b = append(b, fmt.Sprintf("[%d, %d]", r.Lo, r.Hi))
			}
		}
		out = append(out, bson.E{Key: f.Key, Value: b})
	}
	return out
}
