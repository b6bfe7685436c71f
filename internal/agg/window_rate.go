package agg

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// $derivative and $integral read the sortBy value as the x axis (dates as
// milliseconds, distances divided by unit, which dates require) and input
// as y, over the window.

func compileRateFn(op string, arg any, o *windowOut, w *windowStage, cc *compileCtx) (windowFn, error) {
	d, ok := arg.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.FailedToParse, "%s expects an object, but got a %s", op, typeOf(arg))
	}
	var input expr.Expr
	unit := ""
	for _, e := range d {
		switch e.Key {
		case "input":
			c, err := cc.compileExpr(e.Value)
			if err != nil {
				return nil, err
			}
			input = c
		case "unit":
			u, ok := e.Value.(string)
			if !ok || !validUnit(u) || u == "year" || u == "quarter" || u == "month" {
				return nil, mongoerr.New(mongoerr.FailedToParse, "%s: 'unit' must be one of week, day, hour, minute, second, millisecond; got %s", op, show(e.Value))
			}
			unit = u
		default:
			return nil, mongoerr.New(mongoerr.FailedToParse, "%s got unexpected argument: %s", op, e.Key)
		}
	}
	if input == nil {
		return nil, mongoerr.New(mongoerr.FailedToParse, "%s requires an 'input' expression", op)
	}
	if op == "$derivative" && !o.win.set {
		return nil, mongoerr.New(mongoerr.FailedToParse, "$derivative requires explicit window bounds")
	}
	return func(p *partition, o *windowOut, _ *runCtx) ([]any, error) {
		return rateValues(op, input, unit, p, o)
	}, nil
}

func rateValues(op string, input expr.Expr, unit string, p *partition, o *windowOut) ([]any, error) {
	ys, err := evalEach(input, p)
	if err != nil {
		return nil, err
	}
	xs := make([]float64, len(p.docs))
	for i, v := range p.sortV {
		x, err := rateAxis(op, v, unit)
		if err != nil {
			return nil, err
		}
		xs[i] = x
	}
	scale := 1.0 // x distances are divided by it: milliseconds per unit
	if unit != "" {
		scale = float64(unitDuration(unit).Milliseconds())
	}
	out := make([]any, len(ys))
	for i := range ys {
		lo, hi, err := o.win.bounds(p, i, p.desc())
		if err != nil {
			return nil, err
		}
		switch {
		case rateIsDecimal(op, p.sortV, ys, lo, hi):
			out[i] = rateExact(op, p.sortV, ys, lo, hi, int64(scale))
		case op == "$derivative":
			out[i] = derivative(xs, ys, lo, hi, scale)
		default:
			out[i] = integral(xs, ys, lo, hi, scale)
		}
	}
	return out, nil
}

func rateAxis(op string, v any, unit string) (float64, error) {
	dt, isDate := v.(bson.DateTime)
	switch {
	case isDate && unit == "":
		return 0, mongoerr.New(mongoerr.FailedToParse, "%s where the sortBy is a Date requires an 'unit'", op)
	case isDate:
		return float64(dt), nil
	case unit != "":
		return 0, mongoerr.New(mongoerr.FailedToParse, "%s with 'unit' expects the sortBy field to be a Date, but it was %s", op, typeOf(v))
	}
	f, ok := numberAsFloat(v)
	if !ok {
		return 0, mongoerr.New(mongoerr.FailedToParse, "%s (with no 'unit') expects the sortBy field to be numeric, but it was %s", op, typeOf(v))
	}
	return f, nil
}

func derivative(xs []float64, ys []any, lo, hi int, scale float64) any {
	if hi-lo < 1 {
		return nil
	}
	y0, ok0 := numberAsFloat(ys[lo])
	y1, ok1 := numberAsFloat(ys[hi])
	if !ok0 || !ok1 || xs[hi] == xs[lo] {
		return nil
	}
	return (y1 - y0) / ((xs[hi] - xs[lo]) / scale)
}

// integral is the trapezoidal area under the window's points.
func integral(xs []float64, ys []any, lo, hi int, scale float64) any {
	if lo > hi {
		return nil
	}
	sum := 0.0
	for j := lo; j < hi; j++ {
		a, okA := numberAsFloat(ys[j])
		b, okB := numberAsFloat(ys[j+1])
		if okA && okB {
			sum += (a + b) / 2 * ((xs[j+1] - xs[j]) / scale)
		}
	}
	return sum
}

func compileCovariance(op string, arg any, cc *compileCtx) (windowFn, error) {
	arr, ok := arg.(bson.A)
	if !ok || len(arr) != 2 {
		return nil, mongoerr.New(mongoerr.FailedToParse, "%s requires an array of two expressions", op)
	}
	x, err := cc.compileExpr(arr[0])
	if err != nil {
		return nil, err
	}
	y, err := cc.compileExpr(arr[1])
	if err != nil {
		return nil, err
	}
	return func(p *partition, o *windowOut, _ *runCtx) ([]any, error) {
		xs, err := evalEach(x, p)
		if err != nil {
			return nil, err
		}
		ys, err := evalEach(y, p)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(xs))
		for i := range xs {
			lo, hi, err := o.win.bounds(p, i, p.desc())
			if err != nil {
				return nil, err
			}
			out[i] = covariance(xs, ys, lo, hi, op == "$covariancePop")
		}
		return out, nil
	}, nil
}

func covariance(xs, ys []any, lo, hi int, pop bool) any {
	var n, mx, my, c float64
	for j := lo; j <= hi; j++ {
		x, okX := numberAsFloat(xs[j])
		y, okY := numberAsFloat(ys[j])
		if !okX || !okY {
			continue
		}
		n++
		dx := x - mx
		mx += dx / n
		my += (y - my) / n
		c += dx * (y - my)
	}
	switch {
	case n == 0 || (!pop && n < 2):
		return nil
	case pop:
		return c / n
	}
	return c / (n - 1)
}
