package bsonx

import (
	"math"
	"math/big"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// AsFloat64 converts a number to the nearest float64. Decimals beyond
// double range become ±Inf.
func AsFloat64(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case float32:
		return float64(x), true
	case bson.Decimal128:
		// String yields "NaN", "Infinity" or a form ParseFloat accepts;
		// ErrRange still returns the correctly rounded ±Inf or 0.
		f, _ := strconv.ParseFloat(x.String(), 64)
		return f, true
	}
	return 0, false
}

// AsInt64 converts a number to int64 only when its value is integral and
// exactly representable.
func AsInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case int:
		return int64(x), true
	case float64:
		return floatToInt64(x)
	case float32:
		return floatToInt64(float64(x))
	case bson.Decimal128:
		return decimalToInt64(x)
	}
	return 0, false
}

func floatToInt64(f float64) (int64, bool) {
	if f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
		return 0, false
	}
	return int64(f), true
}

func decimalToInt64(d bson.Decimal128) (int64, bool) {
	neg, c, q, ok := decimalParts(d)
	if !ok || (c.Sign() != 0 && (q > 19 || q < -34)) {
		return 0, false // out of int64 range, or a non-zero fraction
	}
	r := new(big.Rat).SetInt(c)
	p := new(big.Rat).SetInt(new(big.Int).Exp(bigTen, big.NewInt(int64(abs(q))), nil))
	if q >= 0 {
		r.Mul(r, p)
	} else {
		r.Quo(r, p)
	}
	if neg {
		r.Neg(r)
	}
	if !r.IsInt() || !r.Num().IsInt64() {
		return 0, false
	}
	return r.Num().Int64(), true
}
