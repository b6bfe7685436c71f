package agg

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/collation"
)

// accumulator folds the values of one group.
//
// A group that spills writes partial() for each accumulator; merging
// those partial states, in input order, into a fresh accumulator gives
// the same result as adding every value to one: $first keeps the first
// partial that saw a value, $last the last, $push and $addToSet
// concatenate (dropping duplicates), $avg sums sums and counts. Runs are
// merged in the order they were written, so "input order" holds.
type accumulator interface {
	// add folds v in and returns how many bytes the state grew by.
	add(v any) (int64, error)
	result() any
	// partial is the state as a BSON value; merge folds one in.
	partial() any
	merge(p any) (int64, error)
}

var accumulators = map[string]func() accumulator{
	"$sum":          func() accumulator { return &sumAcc{} },
	"$avg":          func() accumulator { return &avgAcc{} },
	"$min":          func() accumulator { return &extremeAcc{sign: -1} },
	"$max":          func() accumulator { return &extremeAcc{sign: 1} },
	"$first":        func() accumulator { return &firstAcc{} },
	"$last":         func() accumulator { return &lastAcc{} },
	"$push":         func() accumulator { return &pushAcc{out: bson.A{}} },
	"$addToSet":     func() accumulator { return &setAcc{out: bson.A{}, seen: map[string]bool{}} },
	"$mergeObjects": func() accumulator { return &mergeAcc{out: bson.D{}} },
	"$stdDevPop":    func() accumulator { return &stdDevAcc{pop: true} },
	"$stdDevSamp":   func() accumulator { return &stdDevAcc{} },
}

type sumAcc struct{ s expr.Sum }

func (a *sumAcc) add(v any) (int64, error)   { a.s.Add(v); return 0, nil }
func (a *sumAcc) result() any                { return a.s.Result() }
func (a *sumAcc) partial() any               { return a.s.Result() }
func (a *sumAcc) merge(p any) (int64, error) { return a.add(p) }

// avgAcc counts the numbers itself so that partial sums can be merged.
type avgAcc struct {
	s     expr.Sum
	count int64
}

func (a *avgAcc) add(v any) (int64, error) {
	if bsonx.IsNumber(v) {
		a.s.Add(v)
		a.count++
	}
	return 0, nil
}

// result is the sum over the count: a double, or an exact decimal quotient
// when any input was a decimal.
func (a *avgAcc) result() any { return a.s.AvgOf(a.count) }

func (a *avgAcc) partial() any { return bson.A{a.s.Result(), a.count} }

func (a *avgAcc) merge(p any) (int64, error) {
	arr, _ := p.(bson.A)
	if len(arr) == 2 {
		n, _ := bsonx.AsInt64(arr[1])
		if n > 0 {
			a.s.Add(arr[0])
			a.count += n
		}
	}
	return 0, nil
}

type extremeAcc struct {
	sign  int
	best  any
	found bool
	coll  bsonx.Collator // nil: binary
}

// collatedAcc is an accumulator whose result depends on the collation.
type collatedAcc interface{ setCollator(c *collation.Collator) }

func (a *extremeAcc) setCollator(c *collation.Collator) { a.coll = c }
func (a *setAcc) setCollator(c *collation.Collator)     { a.coll = c }

func (a *extremeAcc) add(v any) (int64, error) {
	if expr.IsNullish(v) {
		return 0, nil
	}
	if !a.found || expr.CompareColl(v, a.best, a.coll)*a.sign > 0 {
		var grew int64
		if !a.found {
			grew = valueSize(v)
		}
		a.best, a.found = v, true
		return grew, nil
	}
	return 0, nil
}

func (a *extremeAcc) result() any { return a.best }

// partial is [] or [best].
func (a *extremeAcc) partial() any {
	if !a.found {
		return bson.A{}
	}
	return bson.A{a.best}
}

func (a *extremeAcc) merge(p any) (int64, error) {
	if arr, _ := p.(bson.A); len(arr) == 1 {
		return a.add(arr[0])
	}
	return 0, nil
}

type firstAcc struct {
	v    any
	seen bool
}

func (a *firstAcc) add(v any) (int64, error) {
	if !a.seen {
		a.v, a.seen = v, true
		return valueSize(v), nil
	}
	return 0, nil
}

func (a *firstAcc) result() any  { return nullIfMissing(a.v) }
func (a *firstAcc) partial() any { return seenPartial(a.seen, a.v) }

func (a *firstAcc) merge(p any) (int64, error) {
	if v, seen := fromSeenPartial(p); seen {
		return a.add(v)
	}
	return 0, nil
}

type lastAcc struct {
	v    any
	seen bool
}

func (a *lastAcc) add(v any) (int64, error) { a.v, a.seen = v, true; return 0, nil }
func (a *lastAcc) result() any              { return nullIfMissing(a.v) }
func (a *lastAcc) partial() any             { return seenPartial(a.seen, a.v) }

func (a *lastAcc) merge(p any) (int64, error) {
	if v, seen := fromSeenPartial(p); seen {
		return a.add(v)
	}
	return 0, nil
}

// seenPartial is [] when no value was seen, else [value] (a missing
// value becomes null, which is what $first and $last output for it).
func seenPartial(seen bool, v any) any {
	if !seen {
		return bson.A{}
	}
	return bson.A{nullIfMissing(v)}
}

func fromSeenPartial(p any) (any, bool) {
	if arr, _ := p.(bson.A); len(arr) == 1 {
		return arr[0], true
	}
	return nil, false
}

func nullIfMissing(v any) any {
	if expr.IsMissing(v) {
		return nil
	}
	return v
}

type pushAcc struct{ out bson.A }

func (a *pushAcc) add(v any) (int64, error) {
	if expr.IsMissing(v) {
		return 0, nil
	}
	a.out = append(a.out, v)
	return valueSize(v) + 16, nil
}

func (a *pushAcc) result() any  { return a.out }
func (a *pushAcc) partial() any { return a.out }

func (a *pushAcc) merge(p any) (int64, error) { return addEach(a.add, p) }

// addEach merges an array partial state by adding its values one by one,
// returning the bytes the accumulator grew by.
func addEach(add func(any) (int64, error), p any) (int64, error) {
	arr, _ := p.(bson.A)
	var grew int64
	for _, v := range arr {
		n, err := add(v)
		if err != nil {
			return grew, err
		}
		grew += n
	}
	return grew, nil
}

type setAcc struct {
	out  bson.A
	seen map[string]bool
	coll *collation.Collator // values equal under it are one; nil: binary
}

func (a *setAcc) add(v any) (int64, error) {
	if expr.IsMissing(v) {
		return 0, nil
	}
	k := groupKey(a.coll.KeyValue(v))
	if a.seen[k] {
		return 0, nil
	}
	a.seen[k] = true
	a.out = append(a.out, v)
	return valueSize(v) + int64(len(k)) + 32, nil
}

func (a *setAcc) result() any  { return a.out }
func (a *setAcc) partial() any { return a.out }

func (a *setAcc) merge(p any) (int64, error) { return addEach(a.add, p) }

type mergeAcc struct{ out bson.D }

func (a *mergeAcc) add(v any) (int64, error) {
	out, err := expr.MergeInto(a.out, v, 0)
	if err != nil {
		return 0, err
	}
	a.out = out
	return valueSize(v), nil // an upper bound, not recomputing out's size
}

func (a *mergeAcc) result() any                { return a.out }
func (a *mergeAcc) partial() any               { return a.out }
func (a *mergeAcc) merge(p any) (int64, error) { return a.add(p) }

type stdDevAcc struct {
	pop  bool
	vals []float64
}

func (a *stdDevAcc) add(v any) (int64, error) {
	if f, ok := numberAsFloat(v); ok {
		a.vals = append(a.vals, f)
		return 8, nil
	}
	return 0, nil
}

func (a *stdDevAcc) result() any { return expr.StdDev(a.vals, a.pop) }

func (a *stdDevAcc) partial() any {
	arr := make(bson.A, len(a.vals))
	for i, f := range a.vals {
		arr[i] = f
	}
	return arr
}

func (a *stdDevAcc) merge(p any) (int64, error) {
	arr, _ := p.(bson.A)
	var grew int64
	for _, v := range arr {
		n, _ := a.add(v)
		grew += n
	}
	return grew, nil
}
