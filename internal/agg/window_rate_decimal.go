package agg

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
)

// Decimal $derivative and $integral: when a decimal is among the points,
// the rate is computed with the aggregation arithmetic, as MongoDB's
// window functions do (rise/run, then times the unit's milliseconds; the
// trapezoids (y0+y1)*(x1-x0)/2.0 summed as $sum, then over the unit's
// milliseconds), so decimals stay exact. Other inputs keep the float path.

// anyDecimal reports whether a decimal is among vals[lo..hi].
func anyDecimal(vals []any, lo, hi int) bool {
	for j := max(lo, 0); j <= hi && j < len(vals); j++ {
		if _, ok := vals[j].(bson.Decimal128); ok {
			return true
		}
	}
	return false
}

// rateIsDecimal reports whether the window [lo, hi] needs the exact path.
func rateIsDecimal(op string, xs, ys []any, lo, hi int) bool {
	if op == "$derivative" {
		return anyDecimal(ys, lo, lo) || anyDecimal(ys, hi, hi) || anyDecimal(xs, lo, lo) || anyDecimal(xs, hi, hi)
	}
	return anyDecimal(ys, lo, hi) || anyDecimal(xs, lo, hi)
}

func derivativeExact(xs, ys []any, lo, hi int, unitMs int64) any {
	if hi-lo < 1 || !isNum(ys[lo]) || !isNum(ys[hi]) {
		return nil
	}
	run, err := expr.Arith("$subtract", xs[hi], xs[lo])
	if err != nil {
		return nil
	}
	rise, err := expr.Arith("$subtract", ys[hi], ys[lo])
	if err != nil {
		return nil
	}
	r, err := expr.Arith("$divide", rise, run)
	if err != nil { // run 0: no rate
		return nil
	}
	if unitMs > 0 {
		r, _ = expr.Arith("$multiply", r, unitMs)
	}
	return r
}

func integralExact(xs, ys []any, lo, hi int, unitMs int64) any {
	if lo > hi {
		return nil
	}
	var sum expr.Sum
	for j := lo; j < hi; j++ {
		if !isNum(ys[j]) || !isNum(ys[j+1]) {
			continue
		}
		if isNaNValue(xs[j]) || isNaNValue(ys[j]) || isNaNValue(xs[j+1]) || isNaNValue(ys[j+1]) {
			return math.NaN()
		}
		delta, err1 := expr.Arith("$subtract", xs[j+1], xs[j])
		sumY, err2 := expr.Arith("$add", ys[j+1], ys[j])
		area, err3 := expr.Arith("$multiply", sumY, delta)
		half, err4 := expr.Arith("$divide", area, 2.0)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			continue
		}
		sum.Add(half)
	}
	r := sum.Result()
	if unitMs > 0 {
		r, _ = expr.Arith("$divide", r, unitMs)
	}
	return r
}

func isNum(v any) bool {
	_, ok := numberAsFloat(v)
	return ok
}

func isNaNValue(v any) bool {
	switch x := v.(type) {
	case float64:
		return x != x
	case bson.Decimal128:
		return x.IsNaN()
	}
	return false
}

// rateExact runs the exact path; scaleMs is 1 without a unit.
func rateExact(op string, xs, ys []any, lo, hi int, scaleMs int64) any {
	unitMs := int64(0)
	if scaleMs > 1 {
		unitMs = scaleMs
	}
	if op == "$derivative" {
		return derivativeExact(xs, ys, lo, hi, unitMs)
	}
	return integralExact(xs, ys, lo, hi, unitMs)
}
