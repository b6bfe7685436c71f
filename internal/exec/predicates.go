package exec

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// pred is what the planner knows about one path from a filter's top-level
// conjuncts: either a set of equality values, or a range within one type
// bracket. Anything else about the path is left to the matcher.
type pred struct {
	eq       []any // equality values ($eq or $in); nil = not an equality
	low      any   // range low bound value, nil = open
	lowIncl  bool
	high     any
	highIncl bool
	hasRange bool
}

// predicates collects index-usable predicates from filter's top-level
// fields and $and clauses. Values that an index cannot bound exactly
// (arrays, regexes, MinKey/MaxKey) are left out.
func predicates(filter bson.D) map[string]*pred {
	out := map[string]*pred{}
	collectPreds(filter, out, 0)
	return out
}

func collectPreds(filter bson.D, out map[string]*pred, depth int) {
	if depth > 10 {
		return
	}
	for _, e := range filter {
		if e.Key == "$and" {
			if arr, ok := e.Value.(bson.A); ok {
				for _, c := range arr {
					if d, ok := c.(bson.D); ok {
						collectPreds(d, out, depth+1)
					}
				}
			}
			continue
		}
		if strings.HasPrefix(e.Key, "$") {
			continue
		}
		if p := pathPred(e.Value); p != nil && out[e.Key] == nil {
			out[e.Key] = p
		}
	}
}

// pathPred reads {path: value} or {path: {$op: value, ...}}.
func pathPred(v any) *pred {
	ops, isOps := v.(bson.D)
	if !isOps || len(ops) == 0 || !strings.HasPrefix(ops[0].Key, "$") {
		if !indexable(v) {
			return nil
		}
		return &pred{eq: eqValues(v)}
	}
	p := &pred{}
	for _, op := range ops {
		switch op.Key {
		case "$eq":
			if !indexable(op.Value) {
				return nil
			}
			p.eq = eqValues(op.Value)
		case "$in":
			arr, ok := op.Value.(bson.A)
			if !ok || !allIndexable(arr) {
				return nil
			}
			p.eq = append([]any(nil), arr...)
		case "$gt", "$gte":
			if !rangeable(op.Value) || (p.low != nil && bsonx.CanonicalType(p.low) != bsonx.CanonicalType(op.Value)) {
				return nil
			}
			p.low, p.lowIncl, p.hasRange = op.Value, op.Key == "$gte", true
		case "$lt", "$lte":
			if !rangeable(op.Value) || (p.high != nil && bsonx.CanonicalType(p.high) != bsonx.CanonicalType(op.Value)) {
				return nil
			}
			p.high, p.highIncl, p.hasRange = op.Value, op.Key == "$lte", true
		}
	}
	if p.low != nil && p.high != nil && bsonx.CanonicalType(p.low) != bsonx.CanonicalType(p.high) {
		return nil
	}
	if p.eq == nil && !p.hasRange {
		return nil
	}
	if p.eq != nil {
		p.hasRange = false
	}
	return p
}

// eqValues are the index keys an equality to v must look up: null also
// matches undefined (MongoDB before 8.0), which an index keeps apart.
func eqValues(v any) []any {
	if v == nil {
		return []any{bson.Undefined{}, nil}
	}
	return []any{v}
}

// indexable: an equality on v can be answered by an index lookup. Arrays
// (which also match as whole values and as elements) and regexes are not.
func indexable(v any) bool {
	switch v.(type) {
	case bson.A, bson.Regex, bson.MinKey, bson.MaxKey, bson.Undefined:
		return false
	case bson.D:
		d := v.(bson.D)
		return len(d) == 0 || !strings.HasPrefix(d[0].Key, "$")
	}
	return true
}

func allIndexable(a bson.A) bool {
	for _, v := range a {
		if !indexable(v) || v == nil {
			return false
		}
	}
	return true
}

func rangeable(v any) bool {
	switch v.(type) {
	case nil, bson.A, bson.D, bson.Regex, bson.MinKey, bson.MaxKey, bson.Undefined:
		return false
	}
	return true
}
