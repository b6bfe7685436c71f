package agg

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/decimal"
)

// $expMovingAvg as MongoDB's AccumulatorExpMovingAvg: every input is
// converted to decimal (a double to 15 significant digits) and the average
// kept in decimal, x*alpha + avg*(1-alpha); the result is that decimal
// when any input was a decimal, else its nearest double.

// emaDecimalAlpha is MongoDB's alpha: 2/(N+1) in decimal, or the alpha
// given, converted as its numberDecimal() (a double to 15 digits).
func emaDecimalAlpha(key string, v any) bson.Decimal128 {
	if key == "N" {
		n, _ := bsonx.AsInt64(v)
		return decimal.Quo(decimal.FromInt64(2), decimal.FromInt64(n+1))
	}
	d, err := expr.Convert(v, "decimal")
	if err != nil {
		return decimal.NaN // emaAlpha has already refused non-numbers
	}
	return d.(bson.Decimal128)
}

func emaDecimalFn(input expr.Expr, alpha bson.Decimal128) windowFn {
	oneMinus := decimal.Sub(decimal.FromInt64(1), alpha)
	return func(p *partition, _ *windowOut, _ *runCtx) ([]any, error) {
		vals, err := evalEach(input, p)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(vals))
		var cur bson.Decimal128
		seen, anyDec := false, false
		for i, v := range vals {
			if isNum(v) {
				if _, ok := v.(bson.Decimal128); ok {
					anyDec = true
				}
				x, _ := expr.Convert(v, "decimal")
				if seen {
					cur = decimal.Add(decimal.Mul(x.(bson.Decimal128), alpha), decimal.Mul(cur, oneMinus))
				} else {
					cur, seen = x.(bson.Decimal128), true
				}
			}
			switch {
			case !seen:
				out[i] = nil
			case anyDec:
				out[i] = cur
			default:
				out[i] = decimal.ToFloat64(cur)
			}
		}
		return out, nil
	}
}
