package agg

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Window functions. Accumulators ($sum, $push, $topN, $median, ...) fold
// the values of each document's window; when consecutive windows share
// their start and grow (the default whole-partition window, or
// [unbounded, n]), one accumulator is extended instead of rebuilt; sliding
// windows of $sum, $count, $avg, $min, $max, $push, $first, $last and
// $stdDev* remove the values that leave (window_removable.go).
// TODO(#14): the other accumulators ($addToSet, the N ones,
// $median/$percentile, $mergeObjects) rebuild per document on a sliding
// window (O(n*w)), as do covariances and $integral.

func compileWindowFn(op string, arg any, o *windowOut, w *windowStage, cc *compileCtx) (windowFn, error) {
	switch op {
	case "$rank", "$denseRank", "$documentNumber":
		if d, ok := arg.(bson.D); !ok || len(d) != 0 {
			return nil, mongoerr.New(mongoerr.FailedToParse, "%s must be specified with '{}' as the value", op)
		}
		return rankFn(op, w), nil
	case "$shift":
		return compileShift(arg, cc)
	case "$locf", "$linearFill":
		e, err := cc.compileExpr(arg)
		if err != nil {
			return nil, err
		}
		if op == "$locf" {
			return locfFn(e), nil
		}
		return linearFillFn(e), nil
	case "$expMovingAvg":
		return compileExpMovingAvg(arg, cc)
	case "$derivative", "$integral":
		return compileRateFn(op, arg, o, w, cc)
	case "$covariancePop", "$covarianceSamp":
		return compileCovariance(op, arg, cc)
	}
	if !isAccumulatorName(op) {
		return nil, mongoerr.New(mongoerr.FailedToParse, "Unrecognized window function, %s", op)
	}
	a, err := compileAccumulator("w", bson.D{{Key: op, Value: arg}}, cc)
	if err != nil {
		return nil, err
	}
	return accWindowFn(a, removableFor(op)), nil
}

func isAccumulatorName(op string) bool {
	_, n := nAccumulators[op]
	_, plain := accumulators[op]
	return n || plain || op == "$count" || op == "$median" || op == "$percentile"
}

// evalEach evaluates e on every document of p.
func evalEach(e expr.Expr, p *partition) ([]any, error) {
	vals := make([]any, len(p.docs))
	for i, d := range p.docs {
		v, err := e.Eval(d, p.vars[i])
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return vals, nil
}

func accWindowFn(a accSpec, rem func() accumulator) windowFn {
	return func(p *partition, o *windowOut, rc *runCtx) ([]any, error) {
		vals, err := evalEach(a.arg, p)
		if err != nil {
			return nil, err
		}
		w := &windowFold{a: a, rem: rem, vals: vals, hi: -1}
		out := make([]any, len(vals))
		for i := range vals {
			lo, hi, err := o.win.bounds(p, i, p.desc())
			if err != nil {
				return nil, err
			}
			if out[i], err = w.result(lo, hi); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
}

// windowFold folds consecutive windows: it extends the accumulator when
// a window grows at the end, slides a removable one when both ends move
// forward, and rebuilds otherwise.
type windowFold struct {
	a      accSpec
	rem    func() accumulator // removable version, or nil
	vals   []any
	acc    accumulator
	lo, hi int // what acc holds
}

func (w *windowFold) result(lo, hi int) (any, error) {
	if lo > hi {
		w.acc = nil
		return w.a.make().result(), nil
	}
	r, isRem := w.acc.(removable)
	switch {
	case w.acc != nil && lo == w.lo && hi >= w.hi: // grows at the end
	case w.acc != nil && w.rem != nil && lo > w.lo && lo <= w.hi+1 && hi >= w.hi: // slides
		if !isRem {
			w.reset(lo, true) // from now on, remove instead of rebuilding
			break
		}
		for ; w.lo < lo; w.lo++ {
			r.remove(w.vals[w.lo])
		}
	default:
		w.reset(lo, false)
	}
	for w.hi < hi {
		w.hi++
		if _, err := w.acc.add(w.vals[w.hi]); err != nil {
			return nil, err
		}
	}
	if r, ok := w.acc.(removable); ok && !r.exact() {
		return fold(w.a.make(), w.vals[lo:hi+1])
	}
	return w.acc.result(), nil
}

// reset starts an empty accumulator at lo: the removable one for a
// sliding window, else the plain one (exact as $group's).
func (w *windowFold) reset(lo int, sliding bool) {
	w.acc, w.lo, w.hi = w.a.make(), lo, lo-1
	if sliding {
		w.acc = w.rem()
	}
}

func fold(acc accumulator, vals []any) (any, error) {
	for _, v := range vals {
		if _, err := acc.add(v); err != nil {
			return nil, err
		}
	}
	return acc.result(), nil
}

// desc reports a descending (first) sortBy field.
func (p *partition) desc() bool { return p.sortDesc }

func rankFn(op string, w *windowStage) windowFn {
	return func(p *partition, _ *windowOut, _ *runCtx) ([]any, error) {
		out := make([]any, len(p.docs))
		rank, dense := int32(0), int32(0)
		for i := range p.docs {
			same := i > 0 && w.sort.CompareKeys(p.keys[i], p.keys[i-1]) == 0
			if !same {
				rank, dense = int32(i+1), dense+1
			}
			switch op {
			case "$rank":
				out[i] = rank
			case "$denseRank":
				out[i] = dense
			default:
				out[i] = int32(i + 1)
			}
		}
		return out, nil
	}
}

func locfFn(e expr.Expr) windowFn {
	return func(p *partition, _ *windowOut, _ *runCtx) ([]any, error) {
		vals, err := evalEach(e, p)
		if err != nil {
			return nil, err
		}
		var last any
		for i, v := range vals {
			if expr.IsNullish(v) {
				vals[i] = last
			} else {
				last = v
			}
		}
		return vals, nil
	}
}
