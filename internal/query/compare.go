package query

import (
	"math"

	"github.com/relaydb/relaydb/internal/bsonx"
	"go.mongodb.org/mongo-driver/v2/bson"
)

type cmpOp int

const (
	opEq cmpOp = iota
	opLt
	opLte
	opGt
	opGte
)

// cmpMatcher implements $eq, $lt, $lte, $gt and $gte against one value.
type cmpMatcher struct {
	op   cmpOp
	rhs  any
	coll bsonx.Collator // nil: binary string order
}

func (m cmpMatcher) matchValue(v any, missing bool) bool {
	if missing {
		return isNull(m.rhs) && m.op.inclusive()
	}
	return compareMatch(m.op, v, m.rhs, m.coll)
}

func (op cmpOp) inclusive() bool { return op == opEq || op == opLte || op == opGte }

// compareMatch is MongoDB's ComparisonMatchExpression::compareElements.
func compareMatch(op cmpOp, v, rhs any, coll bsonx.Collator) bool {
	cv, cr := bsonx.CanonicalType(v), bsonx.CanonicalType(rhs)
	if cv != cr {
		return crossTypeMatch(op, cv, cr)
	}
	if cv == bsonx.CanonNumber {
		if r, ok := nanMatch(op, v, rhs); ok {
			return r
		}
	}
	c := bsonx.CompareColl(v, rhs, coll)
	switch op {
	case opEq:
		return c == 0
	case opLt:
		return c < 0
	case opLte:
		return c <= 0
	case opGt:
		return c > 0
	}
	return c >= 0
}

// crossTypeMatch handles values of different brackets: null and undefined
// are equal; MinKey/MaxKey bounds compare against everything.
func crossTypeMatch(op cmpOp, cv, cr int) bool {
	if cv+cr == bsonx.CanonNull+bsonx.CanonUndefined && (cv == bsonx.CanonNull || cr == bsonx.CanonNull) {
		return op.inclusive()
	}
	switch cr {
	case bsonx.CanonMaxKey:
		return op == opLt || op == opLte
	case bsonx.CanonMinKey:
		return op == opGt || op == opGte
	}
	return false
}

// nanMatch: NaN equals NaN and compares false with anything else.
func nanMatch(op cmpOp, v, rhs any) (result, decided bool) {
	a, b := isNaN(v), isNaN(rhs)
	if !a && !b {
		return false, false
	}
	return a && b && op.inclusive(), true
}

func isNaN(v any) bool {
	f, ok := bsonx.AsFloat64(v)
	return ok && math.IsNaN(f)
}

func isNull(v any) bool {
	switch v.(type) {
	case nil, bson.Null:
		return true
	}
	return false
}

// inMatcher implements $in: equality with any listed value, or a match by
// any listed regular expression.
type inMatcher struct {
	values  []any
	regexes []*regexMatcher
	hasNull bool
	coll    bsonx.Collator
}

func (m *inMatcher) matchValue(v any, missing bool) bool {
	if missing {
		return m.hasNull
	}
	for _, x := range m.values {
		if compareMatch(opEq, v, x, m.coll) {
			return true
		}
	}
	for _, r := range m.regexes {
		if r.matchValue(v, false) {
			return true
		}
	}
	return false
}
