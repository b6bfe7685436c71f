package exec

import (
	"sort"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
)

// wildcardPlan plans a wildcard index as MongoDB does: for one field the
// index covers, it scans that field's entries through the index's view of
// key {$_path: 1, field: 1}. Eligible predicates are equality, $in and
// ranges on scalar values (not null, documents or arrays, whose matches
// the index cannot bound); a path with a numeric component (maybe an
// array position) is not eligible. It returns nil when no field is.
// TODO(#14): sorts on non-multikey paths, $exists, $or branches, and
// choosing among several wildcard fields by cost (the first eligible wins).
func wildcardPlan(idx *catalog.Index, preds map[string]*pred, forced bool) *Plan {
	field := wildcardField(idx, preds)
	if field == "" {
		return nil
	}
	view := idx.WildcardField(field)
	vp := map[string]*pred{"$_path": {eq: []any{field}}, field: preds[field]}
	return indexPlan(view, vp, nil, forced)
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
