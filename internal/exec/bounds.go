package exec

import (
	"bytes"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/storage/keystring"
)

// maxIntervals caps the $in cross product before falling back to a wider scan.
const maxIntervals = 1000

// indexPlan builds an IXSCAN over idx: an equality prefix, then at most one
// $in or range field. It returns nil when idx helps neither the filter nor
// the sort (unless forced by a hint, which scans the whole index).
func indexPlan(idx *catalog.Index, preds map[string]*pred, sort bson.D, forced bool) *Plan {
	if _, ok := idx.WildcardPrefix(); ok {
		return wildcardPlan(idx, preds, nil, sort, forced)
	}
	prefixes := [][]byte{nil}
	var ranged []interval
	var fbs []fieldBounds
	used := 0
	for _, f := range idx.Key {
		pr := preds[f.Key]
		if pr == nil || (idx.Sparse && hasNullEq(pr)) {
			break
		}
		desc := isDesc(f.Value)
		hashed := catalog.IsHashedKey(f.Value)
		if catalog.GeoKind(f.Value) != "" {
			break // a geo field holds cells, not values (geo.go plans geo queries)
		}
		if hashed && len(pr.eq) == 0 {
			break // a hashed field answers equality only: hash order is no value order
		}
		used++
		if len(pr.eq) == 0 {
			if idx.Multikey {
				// Different array elements may satisfy each side of a
				// range, so a multikey path gets one bound only.
				pr = oneSided(pr)
			}
			fbs = append(fbs, fieldBounds{rng: pr})
			lo, hi := rangeBytes(pr, desc)
			for _, p := range prefixes {
				ranged = append(ranged, interval{lo: concat(p, lo), hi: concat(p, hi)})
			}
			break
		}
		if len(prefixes)*len(pr.eq) > maxIntervals {
			used--
			break
		}
		eq := pr.eq
		if hashed {
			eq = hashValues(eq)
		}
		fbs = append(fbs, fieldBounds{eq: eq})
		prefixes = crossEq(prefixes, eq, desc)
		if len(pr.eq) > 1 {
			break
		}
	}
	reverse, covered := sortDirection(idx, sort)
	if !forced && !usable(idx, used, covered && len(sort) > 0) {
		return nil
	}
	ivs := ranged
	if ivs == nil {
		for _, p := range prefixes {
			ivs = append(ivs, interval{lo: p, hi: prefixEnd(p)})
		}
	}
	sortIntervals(ivs)
	if reverse {
		for i, j := 0, len(ivs)-1; i < j; i, j = i+1, j-1 {
			ivs[i], ivs[j] = ivs[j], ivs[i]
		}
	}
	return &Plan{Kind: "IXSCAN", Index: idx, Intervals: ivs, Reverse: reverse, SortCovered: covered,
		Bounds: indexBoundsDoc(idx, fbs, reverse)}
}

// usable reports whether an unhinted plan over idx is complete and useful:
// a sparse index lacks documents missing its fields, so it may serve only
// a filter that excludes those documents (a non-null predicate on its first
// field, which nulls never reach here).
func usable(idx *catalog.Index, used int, helpsSort bool) bool {
	if idx.Sparse {
		return used > 0
	}
	return used > 0 || helpsSort
}

// oneSided keeps the lower bound of a range (or the upper when there is none).
func oneSided(p *pred) *pred {
	if p.low == nil || p.high == nil {
		return p
	}
	q := *p
	q.high, q.highIncl = nil, false
	return &q
}

func concat(a, b []byte) []byte { return append(append([]byte(nil), a...), b...) }

func hasNullEq(p *pred) bool {
	for _, v := range p.eq {
		if v == nil {
			return true
		}
	}
	return false
}

func isDesc(v any) bool {
	f, ok := bsonx.AsFloat64(v)
	return ok && f < 0
}

// crossEq extends every prefix with every equality value.
func crossEq(prefixes [][]byte, vals []any, desc bool) [][]byte {
	out := make([][]byte, 0, len(prefixes)*len(vals))
	seen := map[string]bool{}
	for _, p := range prefixes {
		for _, v := range vals {
			k := keystring.AppendValue(concat(p, nil), v, desc)
			if !seen[string(k)] {
				seen[string(k)] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// rangeBytes returns the byte bounds [lo, hi) of a one-bracket range on one
// index field.
func rangeBytes(pr *pred, desc bool) (lo, hi []byte) {
	ref := pr.low
	if ref == nil {
		ref = pr.high
	}
	bLo, bHi := keystring.BracketLow(ref), keystring.BracketHigh(ref)
	if !desc {
		lo, hi = bLo, bHi
		if pr.low != nil {
			lo = keystring.AppendValue(nil, pr.low, false)
			if !pr.lowIncl {
				lo = prefixEnd(lo)
			}
		}
		if pr.high != nil {
			hi = keystring.AppendValue(nil, pr.high, false)
			if pr.highIncl {
				hi = prefixEnd(hi)
			}
		}
		return lo, hi
	}
	// Descending keys are inverted bytes: the high value gives the low bound,
	// and the bracket [b, b+1) becomes [^b, ^b+1).
	lo, hi = []byte{^bLo[0]}, []byte{^bLo[0] + 1}
	if pr.high != nil {
		lo = keystring.AppendValue(nil, pr.high, true)
		if !pr.highIncl {
			lo = prefixEnd(lo)
		}
	}
	if pr.low != nil {
		hi = keystring.AppendValue(nil, pr.low, true)
		if pr.lowIncl {
			hi = prefixEnd(hi)
		}
	}
	return lo, hi
}

// prefixEnd is the smallest key greater than every key starting with p.
func prefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil // no upper bound
}

func sortIntervals(ivs []interval) {
	for i := 1; i < len(ivs); i++ {
		for j := i; j > 0 && bytes.Compare(ivs[j].lo, ivs[j-1].lo) < 0; j-- {
			ivs[j], ivs[j-1] = ivs[j-1], ivs[j]
		}
	}
}

// sortDirection reports whether scanning idx (forward or reverse) yields
// the requested sort.
func sortDirection(idx *catalog.Index, sort bson.D) (reverse, covered bool) {
	if len(sort) == 0 {
		return false, true
	}
	if idx.Multikey || len(sort) > len(idx.Key) {
		return false, false
	}
	dir := 0
	for i, s := range sort {
		if idx.Key[i].Key != s.Key || catalog.IsHashedKey(idx.Key[i].Value) || catalog.GeoKind(idx.Key[i].Value) != "" {
			return false, false
		}
		same := isDesc(idx.Key[i].Value) == isDesc(s.Value)
		d := 1
		if !same {
			d = -1
		}
		if dir != 0 && d != dir {
			return false, false
		}
		dir = d
	}
	return dir < 0, true
}
