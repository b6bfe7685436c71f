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

// regionPlan returns an IXSCAN over a 2dsphere index for the filter's
// first top-level $geoWithin/$geoIntersects with a spherical region on
// the index's first field, or nil.
func regionPlan(coll *catalog.Collection, filter bson.D) *Plan {
	for _, c := range conjuncts(filter, 0) {
		if strings.HasPrefix(c.Key, "$") {
			continue
		}
		region := geoRegion(c.Value)
		if region == nil {
			continue
		}
		for _, idx := range coll.Indexes() {
			if catalog.GeoKind(idx.Key[0].Value) != "2dsphere" || idx.Key[0].Key != c.Key {
				continue
			}
			if idx.Partial != nil && !implies(predicates(filter), idx.Partial) {
				continue
			}
			rs := geo.CoverRanges(region)
			return &Plan{Kind: "IXSCAN", Index: idx, Intervals: cellIntervals(rs), Bounds: cellBounds(idx, rs)}
		}
	}
	// TODO(#14): 2d index scans for $box/$center/$polygon and 2dsphere
	// fields after the first of a compound index.
	return nil
}

// geoRegion returns the spherical region of {$geoWithin|$geoIntersects: ...}.
func geoRegion(v any) s2.Region {
	ops, ok := v.(bson.D)
	if !ok {
		return nil
	}
	for _, op := range ops {
		switch op.Key {
		case "$geoWithin", "$within":
			if r, err := geo.ParseWithin(op.Value); err == nil && r.S2Region() != nil {
				return r.S2Region()
			}
		case "$geoIntersects":
			if g, err := geo.ParseIntersects(op.Value); err == nil {
				return g.S2Region()
			}
		}
	}
	return nil
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
