package query

import (
	"go.mongodb.org/mongo-driver/v2/bson"
)

// PredOp is the operator of a planner predicate.
type PredOp int

// Planner predicate operators.
const (
	PredEq PredOp = iota
	PredIn
	PredLt
	PredLte
	PredGt
	PredGte
)

// Predicate is a simple condition on one path taken from a top-level
// conjunct of the filter, for deriving index bounds. The Matcher still
// checks the whole filter, so bounds derived from predicates only need to
// cover every matching document.
//
// Value (Values for PredIn) is never a regular expression or an array:
// conjuncts with those are left out. A null Value (or a nil in Values) also
// matches documents where the path is missing or undefined. Range
// predicates match only values of Value's canonical type bracket
// (bsonx.CanonicalType), except that MinKey/MaxKey bounds match everything.
type Predicate struct {
	Path   string
	Op     PredOp
	Value  any
	Values []any
}

// Predicates returns the simple predicates of the filter's top-level
// conjuncts (including those of top-level $and), in filter order.
func (m *Matcher) Predicates() []Predicate { return m.preds }

var predOps = map[string]PredOp{"$eq": PredEq, "$lt": PredLt, "$lte": PredLte, "$gt": PredGt, "$gte": PredGte}

// collectPreds records the planner predicates of one top-level field.
func (c *compiler) collectPreds(path string, v any) {
	d, ok := v.(bson.D)
	if !ok || !isOperatorDoc(d) {
		if plainValue(v) {
			c.preds = append(c.preds, Predicate{Path: path, Op: PredEq, Value: v})
		}
		return
	}
	for _, e := range d {
		if op, ok := predOps[e.Key]; ok && plainValue(e.Value) {
			c.preds = append(c.preds, Predicate{Path: path, Op: op, Value: e.Value})
		}
		if e.Key == "$in" {
			c.collectIn(path, e.Value)
		}
	}
}

func (c *compiler) collectIn(path string, v any) {
	a, ok := v.(bson.A)
	if !ok {
		return
	}
	for _, x := range a {
		if !plainValue(x) {
			return
		}
	}
	c.preds = append(c.preds, Predicate{Path: path, Op: PredIn, Values: append([]any(nil), a...)})
}

func plainValue(v any) bool {
	switch v.(type) {
	case bson.Regex, bson.A, bson.Undefined:
		return false
	}
	return true
}

// IsIDEquality reports whether filter is exactly {_id: v} or
// {_id: {$eq: v}} for a scalar or document v (not an array, regex, null,
// undefined or operator document), and returns v. Such a filter matches
// at most the one document whose _id equals v.
func IsIDEquality(filter bson.D) (id any, ok bool) {
	if len(filter) != 1 || filter[0].Key != "_id" {
		return nil, false
	}
	v := filter[0].Value
	if d, isDoc := v.(bson.D); isDoc && isOperatorDoc(d) {
		if len(d) != 1 || d[0].Key != "$eq" {
			return nil, false
		}
		v = d[0].Value
	}
	if !plainValue(v) || isNull(v) {
		return nil, false
	}
	return v, true
}
