package exec

import (
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/golang/geo/s2"

	"github.com/relaydb/relaydb/internal/bsonx"
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
		preds := predicates(filter)
		for _, idx := range coll.VisibleIndexes() {
			pos, kind := idx.GeoFieldFor(c.Key)
			if pos < 0 || idx.Partial != nil && !implies(preds, idx.Partial) {
				continue
			}
			prefixes := geoPrefixes(idx, pos, preds)
			var rs []geo.KeyRange
			switch {
			case prefixes == nil:
				continue
			case kind == "2dsphere" && region != nil:
				rs = geo.CoverRanges(region)
			case kind == "2d" && flat != nil:
				x0, y0, x1, y1, _ := flat.FlatBox()
				rs = idx.GeoGrid().CoverBox(x0, y0, x1, y1)
			default:
				continue
			}
			return &Plan{Kind: "IXSCAN", Index: idx, Intervals: geoIntervals(prefixes, rs),
				Bounds: geoBounds(idx, pos, preds, prefixes, rs)}
		}
	}
	// TODO(#14): a geo field after a field without equality, $centerSphere
	// over a 2d index and $box/$center/$polygon over a 2dsphere index are
	// answered by the matcher without the geo index.
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

// geoPrefixes returns the encoded equality prefixes of the fields before
// the geo field at pos (one per combination of their values), [nil] when
// it is first, and nil when a field before it has no equality (the scan
// is then the whole index).
func geoPrefixes(idx *catalog.Index, pos int, preds map[string]*pred) [][]byte {
	prefixes := [][]byte{nil}
	for _, f := range idx.Key[:pos] {
		pr := preds[f.Key]
		if pr == nil || len(pr.eq) == 0 || catalog.IsHashedKey(f.Value) || len(prefixes)*len(pr.eq) > maxIntervals {
			return nil
		}
		prefixes = crossEq(prefixes, pr.eq, isDesc(f.Value))
	}
	return prefixes
}

// geoIntervals returns the index intervals of every prefix with every key
// range (each with any suffix of later fields); the whole index without
// prefixes, each prefix's keys without ranges.
func geoIntervals(prefixes [][]byte, rs []geo.KeyRange) []interval {
	if prefixes == nil {
		return []interval{{}}
	}
	var out []interval
	for _, p := range prefixes {
		if rs == nil {
			out = append(out, interval{lo: p, hi: prefixEnd(p)})
			continue
		}
		for _, r := range rs {
			lo := keystring.AppendValue(concat(p, nil), r.Lo, false)
			hi := prefixEnd(keystring.AppendValue(concat(p, nil), r.Hi, false))
			out = append(out, interval{lo: lo, hi: hi})
		}
	}
	sortIntervals(out)
	return out
}

// geoBounds is explain's indexBounds of a geo scan: the equality values
// before the geo field, its key ranges, [MinKey, MaxKey] elsewhere.
func geoBounds(idx *catalog.Index, pos int, preds map[string]*pred, prefixes [][]byte, rs []geo.KeyRange) bson.D {
	out := bson.D{}
	for i, f := range idx.Key {
		b := bson.A{"[MinKey, MaxKey]"}
		switch {
		case prefixes == nil:
		case i < pos:
			b = bson.A{}
			for _, v := range preds[f.Key].eq {
				b = append(b, fmt.Sprintf("[%s, %s]", bsonx.ToString(v), bsonx.ToString(v)))
			}
		case i == pos && rs != nil:
			b = make(bson.A, 0, len(rs))
			for _, r := range rs {
				b = append(b, fmt.Sprintf("[%d, %d]", r.Lo, r.Hi))
			}
		}
		out = append(out, bson.E{Key: f.Key, Value: b})
	}
	return out
}
