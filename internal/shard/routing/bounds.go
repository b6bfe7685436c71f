package routing

import (
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// fieldBounds returns the values filter allows for the key field at path,
// and whether the filter constrains it at all. It reads top-level
// equality ({f: v}), $eq, $in, $gt/$gte/$lt/$lte (combined by
// intersection), a parent's document equality ({a: {b: 1}} for "a.b"),
// and $and (and a one-branch $or). Everything else (other operators, $or,
// which Target unions itself at the top level, $nor, $expr, paths below
// the field) is ignored: that widens the result, so it never drops a
// matching document.
func fieldBounds(filter bson.D, path string) (intervals, bool) {
	var out intervals
	constrained := false
	add := func(l intervals) {
		if !constrained {
			out, constrained = l, true
			return
		}
		out = intersect(out, l)
	}
	for _, e := range filter {
		for _, l := range elementBounds(e, path) {
			add(l)
		}
	}
	return out, constrained
}

// elementBounds returns the constraints one filter element puts on path.
func elementBounds(e bson.E, path string) []intervals {
	switch {
	case e.Key == "$and" || e.Key == "$or" && isSingleBranch(e.Value):
		return logicalBounds(e.Value, path)
	case e.Key == path:
		return operandBounds(e.Value)
	case strings.HasPrefix(path, e.Key+"."):
		return parentBounds(e.Value, strings.TrimPrefix(path, e.Key+"."))
	}
	return nil
}

func isSingleBranch(v any) bool {
	a, ok := v.(bson.A)
	return ok && len(a) == 1
}

func logicalBounds(v any, path string) []intervals {
	a, _ := v.(bson.A)
	var out []intervals
	for _, branch := range a {
		if d, ok := branch.(bson.D); ok {
			if l, ok := fieldBounds(d, path); ok {
				out = append(out, l)
			}
		}
	}
	return out
}

// parentBounds handles {parent: doc} or {parent: {$eq: doc}} for the key
// field parent.rest: the field equals doc's value at rest, if present.
func parentBounds(v any, rest string) []intervals {
	if isOperatorDoc(v) {
		v = operatorValue(v.(bson.D), "$eq")
	}
	d, ok := v.(bson.D)
	if !ok || isOperatorDoc(d) {
		return nil
	}
	x, found := lookupStrict(d, rest)
	if !found || !usablePoint(x) {
		return nil
	}
	return []intervals{equality(x)}
}

// lookupStrict returns the value at path through documents only, and
// whether every part exists (key.Lookup turns a missing part into null).
func lookupStrict(d bson.D, path string) (any, bool) {
	var cur any = d
	for _, part := range strings.Split(path, ".") {
		doc, ok := cur.(bson.D)
		if !ok {
			return nil, false
		}
		found := false
		for _, e := range doc {
			if e.Key == part {
				cur, found = e.Value, true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	return cur, true
}

func operatorValue(d bson.D, op string) any {
	for _, e := range d {
		if e.Key == op {
			return e.Value
		}
	}
	return nil
}

// operandBounds returns the constraints of {path: v}.
func operandBounds(v any) []intervals {
	if !isOperatorDoc(v) {
		if !usablePoint(v) {
			return nil
		}
		return []intervals{equality(v)}
	}
	var out []intervals
	for _, e := range v.(bson.D) {
		if l, ok := operatorBounds(e.Key, e.Value); ok {
			out = append(out, l)
		}
	}
	return out
}

func operatorBounds(op string, v any) (intervals, bool) {
	switch op {
	case "$eq":
		return equality(v), usablePoint(v)
	case "$in":
		return inBounds(v)
	case "$gt", "$gte", "$lt", "$lte":
		if isNull(v) { // only null's bracket (with undefined); $gt/$lt widened
			return equality(v), true
		}
		if !usablePoint(v) {
			return nil, false
		}
		return intervals{comparison(op, v)}, true
	}
	return nil, false
}

func inBounds(v any) (intervals, bool) {
	a, ok := v.(bson.A)
	if raw, isRaw := v.([]any); isRaw {
		a, ok = bson.A(raw), true
	}
	if !ok {
		return nil, false
	}
	for _, x := range a {
		if !usablePoint(x) {
			return nil, false
		}
	}
	vals := []any(a)
	if slices.ContainsFunc(vals, isNull) {
		vals = append(slices.Clone(vals), bson.Undefined{})
	}
	return points(vals), true
}

// equality returns the values {f: v} matches: v, and for null also
// undefined (MongoDB 7.0's null equality, which relaydb's matcher keeps;
// MongoDB 8.0 dropped it).
func equality(v any) intervals {
	if isNull(v) {
		return points([]any{bson.Undefined{}, nil})
	}
	return intervals{point(v)}
}

func isNull(v any) bool {
	switch v.(type) {
	case nil, bson.Null:
		return true
	}
	return false
}

// usablePoint reports whether equality with v means "the field's value
// is v": not for arrays (they also match elements), regexes (they match
// strings), undefined (relaydb's matcher treats it as null), operator
// documents, or non-BSON Go values.
func usablePoint(v any) bool {
	switch v.(type) {
	case bson.A, []any, bson.Regex, bson.Undefined:
		return false
	case bson.D:
		return !isOperatorDoc(v)
	}
	return bsonx.CanonicalType(v) <= bsonx.CanonMaxKey
}

func isOperatorDoc(v any) bool {
	d, ok := v.(bson.D)
	return ok && len(d) > 0 && strings.HasPrefix(d[0].Key, "$")
}
