package agg

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Window functions. Accumulators ($sum, $push, $topN, $median, ...) fold
// the values of each document's window; when consecutive windows share
// their start and grow (the default whole-partition window, or
// [unbounded, n]), one accumulator is extended instead of rebuilt.
// TODO(#14): sliding windows rebuild per document (O(n*w)); MongoDB
// removes values that leave the window.

func compileWindowFn(op string, arg any, o *windowOut, w *windowStage, cc *compileCtx) (windowFn, error) {
	switch op {
	case "$rank", "$denseRank", "$documentNumber":
		if d, ok := arg.(bson.D); !ok || len(d) != 0 {
			return nil, mongoerr.New(mongoerr.WindowBadOutput, "%s must be specified with '{}' as the value", op)
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
		return nil, mongoerr.New(mongoerr.WindowBadOutput, "Unrecognized window function, %s", op)
	}
	a, err := compileAccumulator("w", bson.D{{Key: op, Value: arg}}, cc)
	if err != nil {
		return nil, err
	}
	return accWindowFn(a), nil
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

func accWindowFn(a accSpec) windowFn {
	return func(p *partition, o *windowOut, rc *runCtx) ([]any, error) {
		vals, err := evalEach(a.arg, p)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(vals))
		var acc accumulator
		curLo, curHi := 0, -1
		for i := range vals {
			lo, hi, err := o.win.bounds(p, i, p.desc())
			if err != nil {
				return nil, err
			}
			if lo > hi {
				out[i], acc = a.make().result(), nil
				continue
			}
			if acc == nil || lo != curLo || hi < curHi {
				acc, curLo, curHi = a.make(), lo, lo-1
			}
			for curHi < hi {
				curHi++
				if _, err := acc.add(vals[curHi]); err != nil {
					return nil, err
				}
			}
			out[i] = acc.result()
		}
		return out, nil
	}
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
