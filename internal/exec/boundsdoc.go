package exec

import (
	"math"
	"sort"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
)

// fieldBounds is what an IXSCAN constrains on one index field, for
// explain's indexBounds: equality values (hashes, for a hashed field), or
// a range, or nothing ([MinKey, MaxKey]).
type fieldBounds struct {
	eq  []any
	rng *pred
}

// indexBoundsDoc renders explain's indexBounds as MongoDB does: for each
// key pattern field, its intervals as strings in index order, "[3, 3]"
// for an equality, "(3, inf.0]" for {$gt: 3}, and "[MinKey, MaxKey]" for
// a field the scan leaves open. A hashed field's intervals are in hash
// space: "[h, h]" with h the NumberLong hash of the value. Intervals are
// in scan order: a descending field, or a backward scan, lists them from
// high to low ("[MaxKey, MinKey]"), both flip them back.
func indexBoundsDoc(idx *catalog.Index, fbs []fieldBounds, reverse bool) bson.D {
	out := make(bson.D, 0, len(idx.Key))
	for i, f := range idx.Key {
		down := isDesc(f.Value) != reverse
		var ivs bson.A
		switch {
		case i >= len(fbs) || (fbs[i].eq == nil && fbs[i].rng == nil):
			ivs = bson.A{"[MinKey, MaxKey]"}
			if down {
				ivs = bson.A{"[MaxKey, MinKey]"}
			}
		case fbs[i].eq != nil:
			ivs = pointIntervals(fbs[i].eq, down)
		default:
			ivs = bson.A{rangeInterval(fbs[i].rng, down)}
		}
		out = append(out, bson.E{Key: f.Key, Value: ivs})
	}
	return out
}

func pointIntervals(vals []any, desc bool) bson.A {
	sorted := append([]any(nil), vals...)
	sort.SliceStable(sorted, func(i, j int) bool {
		c := bsonx.Compare(sorted[i], sorted[j])
		if desc {
			return c > 0
		}
		return c < 0
	})
	out := make(bson.A, 0, len(sorted))
	for i, v := range sorted {
		if i > 0 && bsonx.Compare(v, sorted[i-1]) == 0 {
			continue
		}
		s := boundString(v)
		out = append(out, "["+s+", "+s+"]")
	}
	return out
}

// rangeInterval renders a one-bracket range; an open end is the end of
// the value's type bracket.
func rangeInterval(p *pred, desc bool) string {
	ref := p.low
	if ref == nil {
		ref = p.high
	}
	lo, hi := bracketEnds(ref)
	loIncl, hiIncl := true, true
	if p.low != nil {
		lo, loIncl = boundString(p.low), p.lowIncl
	}
	if p.high != nil {
		hi, hiIncl = boundString(p.high), p.highIncl
	}
	if desc {
		lo, hi, loIncl, hiIncl = hi, lo, hiIncl, loIncl
	}
	open, closing := "(", ")"
	if loIncl {
		open = "["
	}
	if hiIncl {
		closing = "]"
	}
	return open + lo + ", " + hi + closing
}

// bracketEnds names the smallest and largest values of v's type bracket
// as MongoDB's bounds show them (numbers, strings, dates; others as
// MinKey/MaxKey).
func bracketEnds(v any) (lo, hi string) {
	switch {
	case bsonx.IsNumber(v):
		return "-inf.0", "inf.0"
	}
	switch v.(type) {
	case string, bson.Symbol:
		return `""`, "{}"
	case bson.DateTime:
		return "new Date(-9223372036854775808)", "new Date(9223372036854775807)"
	case bool:
		return "false", "true"
	}
	return "MinKey", "MaxKey"
}

// boundString renders one bound value (infinities as MongoDB's inf.0).
func boundString(v any) string {
	if _, ok := v.(bson.Undefined); ok {
		return "undefined"
	}
	if f, ok := v.(float64); ok && math.IsInf(f, 0) {
		if f > 0 {
			return "inf.0"
		}
		return "-inf.0"
	}
	return bsonx.ToString(v)
}
