package agg

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
)

// accumulator folds the values of one group.
type accumulator interface {
	add(v any) error
	result() any
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

func (a *sumAcc) add(v any) error { a.s.Add(v); return nil }
func (a *sumAcc) result() any     { return a.s.Result() }

type avgAcc struct{ s expr.Sum }

func (a *avgAcc) add(v any) error { a.s.Add(v); return nil }
func (a *avgAcc) result() any     { return a.s.Avg() }

type extremeAcc struct {
	sign  int
	best  any
	found bool
}

func (a *extremeAcc) add(v any) error {
	if expr.IsNullish(v) {
		return nil
	}
	if !a.found || expr.Compare(v, a.best)*a.sign > 0 {
		a.best, a.found = v, true
	}
	return nil
}

func (a *extremeAcc) result() any { return a.best }

type firstAcc struct {
	v    any
	seen bool
}

func (a *firstAcc) add(v any) error {
	if !a.seen {
		a.v, a.seen = v, true
	}
	return nil
}

func (a *firstAcc) result() any { return nullIfMissing(a.v) }

type lastAcc struct{ v any }

func (a *lastAcc) add(v any) error { a.v = v; return nil }
func (a *lastAcc) result() any     { return nullIfMissing(a.v) }

func nullIfMissing(v any) any {
	if expr.IsMissing(v) {
		return nil
	}
	return v
}

type pushAcc struct{ out bson.A }

func (a *pushAcc) add(v any) error {
	if !expr.IsMissing(v) {
		a.out = append(a.out, v)
	}
	return nil
}

func (a *pushAcc) result() any { return a.out }

type setAcc struct {
	out  bson.A
	seen map[string]bool
}

func (a *setAcc) add(v any) error {
	if expr.IsMissing(v) {
		return nil
	}
	k := groupKey(v)
	if !a.seen[k] {
		a.seen[k] = true
		a.out = append(a.out, v)
	}
	return nil
}

func (a *setAcc) result() any { return a.out }

type mergeAcc struct{ out bson.D }

func (a *mergeAcc) add(v any) error {
	out, err := expr.MergeInto(a.out, v, 0)
	if err != nil {
		return err
	}
	a.out = out
	return nil
}

func (a *mergeAcc) result() any { return a.out }

type stdDevAcc struct {
	pop  bool
	vals []float64
}

func (a *stdDevAcc) add(v any) error {
	if f, ok := numberAsFloat(v); ok {
		a.vals = append(a.vals, f)
	}
	return nil
}

func (a *stdDevAcc) result() any { return expr.StdDev(a.vals, a.pop) }
