package exec

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
)

// The point-lookup fast path: a find whose filter is exactly
// {_id: <scalar>} and which asks for nothing else that needs the query
// compiler (no projection, sort, hint, min/max, returnKey, $text) is an
// IDHACK plan without compiling a matcher or consulting the planner, the
// plan choosePlan would make for it (the YCSB read, findOne by _id).
//
// Invariant: pointPlan returns a plan only where Find's general path
// would return the same IDHACK plan and the same documents, and no error;
// anything else (documents, arrays, regexes, NaN, strings under a
// non-simple collation, a missing collection, the oplog) takes the
// general path.

// pointPlan returns the IDHACK plan of a point lookup, or nil.
func pointPlan(col *catalog.Collection, db, coll string, p FindParams) *Plan {
	if col == nil || len(p.Filter) != 1 || p.Filter[0].Key != "_id" {
		return nil
	}
	if len(p.Projection) > 0 || len(p.Sort) > 0 || p.Hint != nil || p.Min != nil || p.Max != nil ||
		p.ReturnKey || p.textScore || isOplog(db, coll) {
		return nil
	}
	id := p.Filter[0].Value
	if !PointFilter(p.Filter) || (p.collator != nil && hasStrings(id)) {
		return nil
	}
	return &Plan{Kind: "IDHACK", ID: id, SortCovered: true}
}

// PointFilter reports a filter that is exactly {_id: <scalar>}: matching
// it evaluates no expression, so it runs no JavaScript.
func PointFilter(filter bson.D) bool {
	return len(filter) == 1 && filter[0].Key == "_id" && pointValue(filter[0].Value)
}

// pointValue reports a scalar whose equality is its own value: not a
// document (an operator expression), array, regex or NaN.
func pointValue(v any) bool {
	switch x := v.(type) {
	case string, int32, int64, bool, bson.ObjectID:
		return true
	case float64:
		return !math.IsNaN(x)
	}
	return false
}
