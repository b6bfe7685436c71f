package agg

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
)

// Removable window accumulators: a sliding window (both bounds moving
// forward) removes the values that leave it, oldest first, instead of
// rebuilding, so each document costs O(1) amortized rather than O(window)
// ($push: O(output)). A $sum, $avg or $stdDev* window holding a decimal
// or a non-finite double (or a $sum after an int64 overflow) is not
// exact: that document's window is folded by the plain accumulator
// instead.
type removable interface {
	accumulator
	// remove takes out the oldest value still in; v is that value.
	remove(v any)
	// exact reports whether result is right for what is in (else the
	// window is folded by the plain accumulator instead).
	exact() bool
}

// removableFor is newRemovable; tests replace it to get the rebuilding
// reference.
var removableFor = newRemovable

// newRemovable returns a removable accumulator for op, or nil.
func newRemovable(op string) func() accumulator {
	switch op {
	case "$sum", "$count":
		return func() accumulator { return &remSum{} }
	case "$avg":
		return func() accumulator { return &remSum{avg: true} }
	case "$min":
		return func() accumulator { return &remExtreme{sign: -1} }
	case "$max":
		return func() accumulator { return &remExtreme{sign: 1} }
	case "$push":
		return func() accumulator { return &remPush{} }
	case "$first", "$last":
		return func() accumulator { return &remFirstLast{last: op == "$last"} }
	case "$stdDevPop", "$stdDevSamp":
		return func() accumulator { return &remStdDev{pop: op == "$stdDevPop"} }
	}
	return nil
}

// remSum sums as $sum does (int32 while every value is an int32 and the
// total fits, then long, then double once a double is in the window).
type remSum struct {
	avg               bool
	ints              int64
	floats            float64
	n32, n64, nDouble int64
	nNum              int64 // numbers in
	nInexact          int64 // decimals and non-finite doubles in, plus overflows ever
}

func (a *remSum) add(v any) (int64, error) { a.update(v, 1); return 0, nil }

func (a *remSum) remove(v any) { a.update(v, -1) }
func (a *remSum) exact() bool  { return a.nInexact == 0 }

func (a *remSum) update(v any, sign int64) {
	switch t := v.(type) {
	case int32:
		a.n32 += sign
		a.addInt(int64(t) * sign)
	case int64:
		a.n64 += sign
		a.addInt(t * sign)
	case float64:
		if math.IsInf(t, 0) || math.IsNaN(t) {
			a.nInexact += sign
			return
		}
		a.nDouble += sign
		a.floats += t * float64(sign)
	case bson.Decimal128:
		a.nInexact += sign
	default:
		return
	}
	a.nNum += sign
}

func (a *remSum) addInt(d int64) {
	s := a.ints + d
	if (d > 0 && s < a.ints) || (d < 0 && s > a.ints) {
		a.nInexact++ // overflow: never exact again
		return
	}
	a.ints = s
}

func (a *remSum) result() any {
	total := a.sum()
	if !a.avg {
		return total
	}
	if a.nNum == 0 {
		return nil
	}
	f, _ := numberAsFloat(total)
	return f / float64(a.nNum)
}

func (a *remSum) sum() any {
	switch {
	case a.nDouble > 0:
		return float64(a.ints) + a.floats
	case a.n64 > 0 || a.ints > math.MaxInt32 || a.ints < math.MinInt32:
		return a.ints
	}
	return int32(a.ints)
}

func (a *remSum) partial() any                 { return nil } // windows never spill
func (a *remSum) merge(any) (int64, error)     { return 0, nil }
func (a *remExtreme) partial() any             { return nil }
func (a *remExtreme) merge(any) (int64, error) { return 0, nil }
func (a *remPush) partial() any                { return nil }
func (a *remPush) merge(any) (int64, error)    { return 0, nil }

// remExtreme keeps a monotonic queue: values that can still become the
// window's extreme, oldest first, each with its arrival number.
type remExtreme struct {
	sign          int
	q             []seqVal
	added, popped int64
}

type seqVal struct {
	seq int64
	v   any
}

func (a *remExtreme) add(v any) (int64, error) {
	seq := a.added
	a.added++
	if expr.IsNullish(v) {
		return 0, nil
	}
	for len(a.q) > 0 && expr.Compare(v, a.q[len(a.q)-1].v)*a.sign > 0 {
		a.q = a.q[:len(a.q)-1]
	}
	a.q = append(a.q, seqVal{seq, v})
	return 0, nil
}

func (a *remExtreme) remove(any) {
	if len(a.q) > 0 && a.q[0].seq == a.popped {
		a.q = a.q[1:]
	}
	a.popped++
}

func (a *remExtreme) exact() bool { return true }

func (a *remExtreme) result() any {
	if len(a.q) == 0 {
		return nil
	}
	return a.q[0].v
}

// remPush is $push over a sliding window.
type remPush struct{ out bson.A }

func (a *remPush) add(v any) (int64, error) {
	a.out = append(a.out, v) // missing values too, so removal stays FIFO
	return 0, nil
}

func (a *remPush) remove(any)  { a.out = a.out[1:] }
func (a *remPush) exact() bool { return true }

func (a *remPush) result() any {
	out := make(bson.A, 0, len(a.out))
	for _, v := range a.out {
		if !expr.IsMissing(v) {
			out = append(out, v)
		}
	}
	return out
}

// remFirstLast is $first or $last over a sliding window: the values in
// order (a missing one as null, as $first/$last output it).
type remFirstLast struct {
	last bool
	q    []any
}

func (a *remFirstLast) add(v any) (int64, error) { a.q = append(a.q, nullIfMissing(v)); return 0, nil }
func (a *remFirstLast) remove(any)               { a.q = a.q[1:] }
func (a *remFirstLast) exact() bool              { return true }
func (a *remFirstLast) partial() any             { return nil }
func (a *remFirstLast) merge(any) (int64, error) { return 0, nil }

func (a *remFirstLast) result() any {
	switch {
	case len(a.q) == 0:
		return nil
	case a.last:
		return a.q[len(a.q)-1]
	}
	return a.q[0]
}

// remStdDev keeps the count, sum and sum of squares, updated on removal
// too; a non-finite value makes it inexact while in. (Less precise than
// the plain accumulator's Welford pass when values are huge and close.)
type remStdDev struct {
	pop          bool
	n, sum, sum2 float64
	nonFinite    int
}

func (a *remStdDev) add(v any) (int64, error) { a.update(v, 1); return 0, nil }
func (a *remStdDev) remove(v any)             { a.update(v, -1) }

func (a *remStdDev) update(v any, sign float64) {
	x, ok := numberAsFloat(v)
	switch {
	case !ok:
	case math.IsInf(x, 0) || math.IsNaN(x):
		a.nonFinite += int(sign)
	default:
		a.n += sign
		a.sum += sign * x
		a.sum2 += sign * x * x
	}
}

func (a *remStdDev) exact() bool              { return a.nonFinite == 0 }
func (a *remStdDev) partial() any             { return nil }
func (a *remStdDev) merge(any) (int64, error) { return 0, nil }

func (a *remStdDev) result() any {
	if a.n <= 0 || (!a.pop && a.n < 2) {
		return nil
	}
	m2 := math.Max(a.sum2-a.sum*a.sum/a.n, 0)
	if a.pop {
		return math.Sqrt(m2 / a.n)
	}
	return math.Sqrt(m2 / (a.n - 1))
}
