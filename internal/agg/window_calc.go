package agg

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// $shift, $linearFill, $expMovingAvg, $derivative, $integral and the
// covariances: window functions computed from positions and sortBy
// values rather than by an accumulator.

func compileShift(arg any, cc *compileCtx) (windowFn, error) {
	d, ok := arg.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.FailedToParse, "Argument to $shift must be an object")
	}
	var output expr.Expr
	var by int64
	hasBy := false
	var def any
	for _, e := range d {
		switch e.Key {
		case "output":
			o, err := cc.compileExpr(e.Value)
			if err != nil {
				return nil, err
			}
			output = o
		case "by":
			n, isInt := bsonx.AsInt64(e.Value)
			if !bsonx.IsNumber(e.Value) || !isInt || n < math.MinInt32 || n > math.MaxInt32 {
				return nil, mongoerr.New(mongoerr.FailedToParse, "'$shift:by' field must be an integer, but found %s", show(e.Value))
			}
			by, hasBy = n, true
		case "default":
			c, err := cc.compileExpr(e.Value)
			if err != nil {
				return nil, err
			}
			v, isConst := expr.IsConst(c)
			if !isConst {
				return nil, mongoerr.New(mongoerr.FailedToParse, "'$shift:default' expression must yield a constant value.")
			}
			def = v
		default:
			return nil, mongoerr.New(mongoerr.FailedToParse, "Unknown argument in $shift: %s", e.Key)
		}
	}
	if output == nil || !hasBy {
		return nil, mongoerr.New(mongoerr.FailedToParse, "$shift requires 'output' and 'by' fields")
	}
	return func(p *partition, _ *windowOut, _ *runCtx) ([]any, error) {
		out := make([]any, len(p.docs))
		for i := range p.docs {
			j := i + int(by)
			if j < 0 || j >= len(p.docs) {
				out[i] = def
				continue
			}
			v, err := output.Eval(p.docs[j], p.vars[j])
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}, nil
}

// linearFillFn fills null and missing values by linear interpolation
// between the nearest non-null neighbours along the sortBy value.
func linearFillFn(e expr.Expr) windowFn {
	return func(p *partition, o *windowOut, _ *runCtx) ([]any, error) {
		vals, err := evalEach(e, p)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(vals))
		prev := -1
		for i, v := range vals {
			if !expr.IsNullish(v) {
				if _, ok := numberAsFloat(v); !ok {
					return nil, mongoerr.New(mongoerr.TypeMismatch, "Expected the input to $linearFill to be a number, but it was %s", typeOf(v))
				}
				out[i], prev = v, i
				continue
			}
			out[i] = nil
			next := nextNonNull(vals, i)
			if prev >= 0 && next >= 0 {
				out[i] = interpolate(p, vals, prev, next, i)
			}
		}
		return out, nil
	}
}

func nextNonNull(vals []any, i int) int {
	for j := i + 1; j < len(vals); j++ {
		if !expr.IsNullish(vals[j]) {
			return j
		}
	}
	return -1
}

func interpolate(p *partition, vals []any, a, b, i int) any {
	xa, xb, xi := axisValue(p.sortV[a]), axisValue(p.sortV[b]), axisValue(p.sortV[i])
	ya, _ := numberAsFloat(vals[a])
	yb, _ := numberAsFloat(vals[b])
	if xb == xa {
		return ya
	}
	return ya + (yb-ya)*(xi-xa)/(xb-xa)
}

// axisValue is a sortBy value as a number (dates: milliseconds).
func axisValue(v any) float64 {
	if dt, ok := v.(bson.DateTime); ok {
		return float64(dt)
	}
	f, _ := numberAsFloat(v)
	return f
}

func compileExpMovingAvg(arg any, cc *compileCtx) (windowFn, error) {
	d, ok := arg.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.FailedToParse, "$expMovingAvg must have exactly one argument that is an object")
	}
	var input expr.Expr
	alpha := math.NaN()
	var spec bson.E // the N or alpha field
	for _, e := range d {
		switch e.Key {
		case "input":
			c, err := cc.compileExpr(e.Value)
			if err != nil {
				return nil, err
			}
			input = c
		case "N", "alpha":
			if !math.IsNaN(alpha) {
				return nil, mongoerr.New(mongoerr.FailedToParse, "$expMovingAvg must have exactly one of 'N' or 'alpha'")
			}
			a, err := emaAlpha(e.Key, e.Value)
			if err != nil {
				return nil, err
			}
			alpha, spec = a, e
		default:
			return nil, mongoerr.New(mongoerr.FailedToParse, "Got unrecognized field in $expMovingAvg: %s", e.Key)
		}
	}
	if input == nil || math.IsNaN(alpha) {
		return nil, mongoerr.New(mongoerr.FailedToParse, "$expMovingAvg requires 'input' and one of 'N' or 'alpha'")
	}
	return emaDecimalFn(input, emaDecimalAlpha(spec.Key, spec.Value)), nil
}

func emaAlpha(key string, v any) (float64, error) {
	f, ok := numberAsFloat(v)
	if key == "N" {
		n, isInt := bsonx.AsInt64(v)
		if !ok || !isInt || n <= 0 {
			return 0, mongoerr.New(mongoerr.FailedToParse, "'N' field must be an integer greater than zero, but found %s", show(v))
		}
		return 2 / (float64(n) + 1), nil
	}
	if !ok || f <= 0 || f >= 1 {
		return 0, mongoerr.New(mongoerr.FailedToParse, "'alpha' must be a number between 0 and 1 (exclusive), but found %s", show(v))
	}
	return f, nil
}
