package exec

import (
	"sort"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/storage/keystring"
)

// wildcardPlan plans a wildcard index as MongoDB does: for one field the
// index covers, it scans that field's entries through the index's view of
// key {$_path: 1, field: 1}. Eligible predicates are equality, $in and
// ranges on scalar values (not null, documents or arrays, whose matches
// the index cannot bound), else {field: {$exists: true}}; a path with a
// numeric component (maybe an array position) is not eligible. It returns
// nil when no field is.
// The scan also provides the sort when it is on that field alone and the
// index is not multikey (wildcardSort).
// TODO(#14): $or branches, and choosing among several wildcard fields by
// cost (the first eligible wins).
func wildcardPlan(idx *catalog.Index, preds map[string]*pred, filter, sort bson.D, forced bool) *Plan {
	field := wildcardField(idx, preds)
	if field == "" {
		return wildcardExistsPlan(idx, filter)
	}
	view := idx.WildcardField(field)
	vp := map[string]*pred{"$_path": {eq: []any{field}}, field: preds[field]}
	ws := wildcardSort(idx, field, sort) // wildcard_sort.go
	p := indexPlan(view, vp, ws, forced)
	if p != nil && len(sort) > 0 && ws == nil {
		p.SortCovered = false
	}
	return p
}

// wildcardField picks the eligible field: a single equality first, then
// $in, then a range; ties go to the first name in order.
func wildcardField(idx *catalog.Index, preds map[string]*pred) string {
	names := make([]string, 0, len(preds))
	for f := range preds {
		names = append(names, f)
	}
	sort.Strings(names)
	best, bestRank := "", 0
	for _, f := range names {
		if !idx.Covers(f) || numericComponent(f) {
			continue
		}
		if r := wildcardRank(preds[f]); r > bestRank {
			best, bestRank = f, r
		}
	}
	return best
}

func wildcardRank(p *pred) int {
	switch {
	case len(p.eq) > 0:
		for _, v := range p.eq {
			if !wildcardScalar(v) {
				return 0
			}
		}
		if len(p.eq) == 1 {
			return 3
		}
		return 2
	case p.hasRange:
		if (p.low != nil && !wildcardScalar(p.low)) || (p.high != nil && !wildcardScalar(p.high)) {
			return 0
		}
		if p.low == nil && p.high == nil {
			return 0
		}
		return 1
	}
	return 0
}

func wildcardScalar(v any) bool {
	switch v.(type) {
	case nil, bson.D, bson.A, bson.Undefined, bson.M:
		return false
	}
	return true
}

func numericComponent(path string) bool {
	for _, seg := range strings.Split(path, ".") {
		if _, err := strconv.Atoi(seg); err == nil {
			return true
		}
	}
	return false
}

// wildcardExistsPlan answers {field: {$exists: true}}: every entry of the
// field's path and of the paths under it (the view is multikey so that a
// document with several such entries is returned once).
func wildcardExistsPlan(idx *catalog.Index, filter bson.D) *Plan {
	prefix, _ := idx.WildcardPrefix()
	var field string
	for _, f := range existsFields(filter, 0) {
		if idx.Covers(f) && !numericComponent(f) && f != prefix && (field == "" || f < field) {
			field = f
		}
	}
	if field == "" {
		return nil
	}
	view := idx.WildcardField(field)
	view.Multikey = true
	str := func(v string) []byte { return keystring.AppendValue(nil, v, false) }
	ivs := []interval{{lo: str(field), hi: prefixEnd(str(field))}, {lo: str(field + "."), hi: str(field + "/")}}
	path, sub := boundString(field), boundString(field+".")
	bounds := bson.D{
		{Key: "$_path", Value: bson.A{"[" + path + ", " + path + "]", "[" + sub + ", " + boundString(field+"/") + ")"}},
		{Key: field, Value: bson.A{"[MinKey, MaxKey]"}},
	}
	return &Plan{Kind: "IXSCAN", Index: view, Intervals: ivs, Bounds: bounds}
}

// existsFields are the fields of {field: {$exists: true}} at the top of
// filter or in its $and clauses.
func existsFields(filter bson.D, depth int) []string {
	var out []string
	for _, e := range filter {
		if e.Key == "$and" && depth < 10 {
			arr, _ := e.Value.(bson.A)
			for _, c := range arr {
				if d, ok := c.(bson.D); ok {
					out = append(out, existsFields(d, depth+1)...)
				}
			}
			continue
		}
		ops, ok := e.Value.(bson.D)
		if !ok || strings.HasPrefix(e.Key, "$") {
			continue
		}
		for _, op := range ops {
			if op.Key == "$exists" && truthy(op.Value) {
				out = append(out, e.Key)
			}
		}
	}
	return out
}

func truthy(v any) bool {
	switch t := v.(type) {
	case bool:
		return t
	case nil:
		return false
	}
	n, ok := bsonx.AsFloat64(v)
	return !ok || n != 0
}
