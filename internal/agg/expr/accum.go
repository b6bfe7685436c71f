package expr

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/decimal"
)

// Sum accumulates numbers as $sum does: non-numeric values are ignored; the
// result is int32 while every input is int32 and the total fits, then
// long, then double. As MongoDB's AccumulatorSum, decimals are summed
// exactly in their own total; once one is seen the result is that total
// plus the other numbers' total converted to decimal.
type Sum struct {
	n      number // total of the non-decimal inputs
	d      number // total of the decimal inputs (kDecimal once hasDec)
	hasDec bool
	count  int64 // numeric values added
}

// Add adds v if it is a number.
func (s *Sum) Add(v any) {
	n, ok := toNumber(v)
	if !ok {
		return
	}
	switch {
	case n.k != kDecimal:
		s.n = addNum(s.n, n)
	case s.hasDec:
		s.d = addNum(s.d, n)
	default:
		s.d, s.hasDec = n, true
	}
	s.count++
}

// total is the sum; with a decimal total the other numbers' total joins
// it as MongoDB's DoubleDoubleSummation::getDecimal converts it (a double
// to 34 significant digits, integers exactly).
func (s *Sum) total() number {
	if !s.hasDec {
		return s.n
	}
	other := s.n.dec()
	if s.n.k == kDouble {
		other = decimal.FromFloat64(s.n.f, decimal.Double34)
	}
	return decNum(decimal.Add(s.d.d, other))
}

// Result returns the sum (int32 0 when nothing was added).
func (s *Sum) Result() any { return s.total().value() }

// Avg returns the mean of the numbers added, or null if none: a double, or
// an exact decimal quotient if any input was a decimal.
func (s *Sum) Avg() any { return s.AvgOf(s.count) }

// AvgOf returns the sum divided by count (null when count is 0).
func (s *Sum) AvgOf(count int64) any {
	if count == 0 {
		return nil
	}
	t := s.total()
	if t.k == kDecimal {
		return decimal.Quo(t.d, decimal.FromInt64(count))
	}
	return t.float() / float64(count)
}

// StdDev returns the population (pop) or sample standard deviation of the
// numbers in vals, or null when undefined.
func StdDev(vals []float64, pop bool) any {
	n := float64(len(vals))
	if n == 0 || (!pop && n < 2) {
		return nil
	}
	var mean, m2 float64
	for i, x := range vals {
		d := x - mean
		mean += d / float64(i+1)
		m2 += d * (x - mean)
	}
	if pop {
		return math.Sqrt(m2 / n)
	}
	return math.Sqrt(m2 / (n - 1))
}

// $sum, $avg, $min, $max, $stdDevPop, $stdDevSamp used as expressions: one
// array argument means its elements, otherwise the arguments themselves.
func registerAccumulatorExprs() {
	listOp := func(name string, fn func(vals []any) any) {
		nary(name, 0, -1, func(_ string, a []any) (any, error) {
			if len(a) == 1 {
				if arr, ok := a[0].(bson.A); ok {
					return fn(arr), nil
				}
			}
			return fn(a), nil
		})
	}
	listOp("$sum", func(vals []any) any {
		var s Sum
		for _, v := range vals {
			s.Add(v)
		}
		return s.Result()
	})
	listOp("$avg", func(vals []any) any {
		var s Sum
		for _, v := range vals {
			s.Add(v)
		}
		return s.Avg()
	})
	listOp("$min", func(vals []any) any { return extreme(vals, -1) })
	listOp("$max", func(vals []any) any { return extreme(vals, 1) })
	listOp("$stdDevPop", func(vals []any) any { return StdDev(floats(vals), true) })
	listOp("$stdDevSamp", func(vals []any) any { return StdDev(floats(vals), false) })
}

// extreme returns the minimum (sign -1) or maximum (sign 1) non-nullish
// value, or null.
func extreme(vals []any, sign int) any {
	var best any
	found := false
	for _, v := range vals {
		if IsNullish(v) {
			continue
		}
		if !found || Compare(v, best)*sign > 0 {
			best, found = v, true
		}
	}
	return best
}

func floats(vals []any) []float64 {
	out := make([]float64, 0, len(vals))
	for _, v := range vals {
		if n, ok := toNumber(v); ok {
			out = append(out, n.float())
		}
	}
	return out
}
