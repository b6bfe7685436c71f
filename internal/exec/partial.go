package exec

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// implies reports whether every document matching a filter (summarised by
// its predicates) also matches an index's partialFilterExpression, so the
// partial index holds every result. The check is conservative: each
// conjunct of the partial filter must be implied by the filter's predicate
// on the same path (equalities whose values satisfy it, or a range inside
// it); anything else answers false and the index is not used.
func implies(preds map[string]*pred, partial bson.D) bool {
	conds := map[string]*pred{}
	exists := map[string]bool{}
	if !partialConds(partial, conds, exists) {
		return false
	}
	for path := range exists {
		q := preds[path]
		if q == nil || hasNullEq(q) {
			return false
		}
	}
	for path, c := range conds {
		q := preds[path]
		if q == nil || !within(q, c) {
			return false
		}
	}
	return true
}

// partialConds splits a partial filter into per-path conditions; false
// when it uses a form implies does not reason about.
func partialConds(partial bson.D, conds map[string]*pred, exists map[string]bool) bool {
	for _, e := range partial {
		if e.Key == "$and" {
			arr, _ := e.Value.(bson.A)
			for _, x := range arr {
				d, ok := x.(bson.D)
				if !ok || !partialConds(d, conds, exists) {
					return false
				}
			}
			continue
		}
		if d, ok := e.Value.(bson.D); ok && len(d) == 1 && d[0].Key == "$exists" {
			if b, _ := d[0].Value.(bool); b {
				exists[e.Key] = true
				continue
			}
			return false
		}
		p := pathPred(e.Value)
		if p == nil || conds[e.Key] != nil {
			return false
		}
		conds[e.Key] = p
	}
	return true
}

// within reports whether every value the query predicate q admits also
// satisfies the condition c.
func within(q, c *pred) bool {
	if len(q.eq) > 0 {
		for _, v := range q.eq {
			if !admits(c, v) {
				return false
			}
		}
		return true
	}
	if len(c.eq) > 0 {
		return false
	}
	ref := q.low
	if ref == nil {
		ref = q.high
	}
	cref := c.low
	if cref == nil {
		cref = c.high
	}
	if bsonx.CanonicalType(ref) != bsonx.CanonicalType(cref) {
		return false
	}
	if c.low != nil && (q.low == nil || !lowInside(q.low, q.lowIncl, c.low, c.lowIncl)) {
		return false
	}
	if c.high != nil && (q.high == nil || !highInside(q.high, q.highIncl, c.high, c.highIncl)) {
		return false
	}
	return true
}

func lowInside(q any, qIncl bool, c any, cIncl bool) bool {
	n := bsonx.Compare(q, c)
	return n > 0 || (n == 0 && (cIncl || !qIncl))
}

func highInside(q any, qIncl bool, c any, cIncl bool) bool {
	n := bsonx.Compare(q, c)
	return n < 0 || (n == 0 && (cIncl || !qIncl))
}

// admits reports whether value v satisfies condition c.
func admits(c *pred, v any) bool {
	if len(c.eq) > 0 {
		for _, x := range c.eq {
			if bsonx.Equal(x, v) {
				return true
			}
		}
		return false
	}
	ref := c.low
	if ref == nil {
		ref = c.high
	}
	if bsonx.CanonicalType(ref) != bsonx.CanonicalType(v) {
		return false
	}
	if c.low != nil {
		n := bsonx.Compare(v, c.low)
		if n < 0 || (n == 0 && !c.lowIncl) {
			return false
		}
	}
	if c.high != nil {
		n := bsonx.Compare(v, c.high)
		if n > 0 || (n == 0 && !c.highIncl) {
			return false
		}
	}
	return true
}
