package routing

import (
	"math"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// interval is a range of one key field's values, in BSON order.
type interval struct {
	lo, hi         any
	loIncl, hiIncl bool
}

// intervals is a sorted list of disjoint intervals of one field; nil
// inside a constraint means "no value" (the field is unsatisfiable).
type intervals []interval

var fullInterval = interval{lo: bson.MinKey{}, hi: bson.MaxKey{}, loIncl: true, hiIncl: true}

func point(v any) interval { return interval{lo: v, hi: v, loIncl: true, hiIncl: true} }

// points returns the sorted, deduplicated point intervals of vs.
func points(vs []any) intervals {
	vs = slices.Clone(vs)
	slices.SortFunc(vs, bsonx.Compare)
	vs = slices.CompactFunc(vs, bsonx.Equal)
	out := make(intervals, len(vs))
	for i, v := range vs {
		out[i] = point(v)
	}
	return out
}

// bracket returns the bounds of v's type bracket where MongoDB's index
// bounds stop at it ($gt 5 is (5, +Inf], $lt "b" is ["", "b")): numbers
// and strings; other types widen to [MinKey, MaxKey], a superset.
func bracket(v any) (lo, hi any, hiIncl bool) {
	switch bsonx.CanonicalType(v) {
	case bsonx.CanonNumber:
		if f, _ := bsonx.AsFloat64(v); math.IsNaN(f) {
			return math.NaN(), math.NaN(), true
		}
		return math.Inf(-1), math.Inf(1), true
	case bsonx.CanonString:
		return "", bson.D{}, false
	}
	return bson.MinKey{}, bson.MaxKey{}, true
}

// comparison returns the interval of {$op: v} for $gt, $gte, $lt, $lte.
func comparison(op string, v any) interval {
	lo, hi, hiIncl := bracket(v)
	switch op {
	case "$gt", "$gte":
		return interval{lo: v, hi: hi, loIncl: op == "$gte", hiIncl: hiIncl}
	}
	return interval{lo: lo, hi: v, loIncl: true, hiIncl: op == "$lte"}
}

// intersect returns a ∩ b, sorted and disjoint.
func intersect(a, b intervals) intervals {
	out := intervals{}
	for _, x := range a {
		for _, y := range b {
			if z, ok := intersectOne(x, y); ok {
				out = append(out, z)
			}
		}
	}
	slices.SortFunc(out, func(x, y interval) int { return bsonx.Compare(x.lo, y.lo) })
	return out
}

func intersectOne(x, y interval) (interval, bool) {
	z := x
	switch c := bsonx.Compare(y.lo, x.lo); {
	case c > 0:
		z.lo, z.loIncl = y.lo, y.loIncl
	case c == 0:
		z.loIncl = x.loIncl && y.loIncl
	}
	switch c := bsonx.Compare(y.hi, x.hi); {
	case c < 0:
		z.hi, z.hiIncl = y.hi, y.hiIncl
	case c == 0:
		z.hiIncl = x.hiIncl && y.hiIncl
	}
	c := bsonx.Compare(z.lo, z.hi)
	return z, c < 0 || (c == 0 && z.loIncl && z.hiIncl)
}

// isPoints reports whether every interval is a single value.
func (l intervals) isPoints() bool {
	for _, iv := range l {
		if bsonx.Compare(iv.lo, iv.hi) != 0 {
			return false
		}
	}
	return true
}
