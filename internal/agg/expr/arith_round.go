package expr

import (
	"github.com/cockroachdb/apd/v3"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/decimal"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// unaryRound implements $ceil and $floor: integers round to themselves,
// decimals exactly with decFn.
func unaryRound(fn func(float64) float64, decFn func(bson.Decimal128) bson.Decimal128) func(string, []any) (any, error) {
	return func(name string, args []any) (any, error) {
		n, null, err := numericArg(name, args[0], mongoerr.UnaryArithNotNumeric)
		if null || err != nil {
			return nil, err
		}
		if n.k <= kLong {
			return args[0], nil // integers round to themselves, type kept
		}
		if n.k == kDecimal {
			return decFn(n.d), nil
		}
		return number{k: n.k, f: fn(n.f)}.value(), nil
	}
}

// placeRound implements $round and $trunc: [number, place], place in
// [-20, 100]. As MongoDB, every type is rounded in decimal: a decimal is
// quantized to 10^-place with mode (NaN when that needs more than 34
// digits), a double goes through its 34-digit decimal and back, an integer
// at a negative place is quantized and must still fit a long.
func placeRound(mode apd.Rounder) func(string, []any) (any, error) {
	return func(name string, args []any) (any, error) {
		place := int64(0)
		if len(args) == 2 {
			if IsNullish(args[1]) {
				return nil, nil
			}
			p, ok := asInt(args[1])
			if !ok {
				return nil, errf(mongoerr.RoundBadArgument, "%s requires \"place\" argument to be an integral value, found %s", name, typeName(args[1]))
			}
			if p < -20 || p > 100 {
				return nil, errf(mongoerr.RoundPlaceOutOfRange, "cannot apply %s with precision value %d value must be in [-20, 100]", name, p)
			}
			place = p
		}
		n, null, err := numericArg(name, args[0], mongoerr.RoundBadArgument)
		if null || err != nil {
			return nil, err
		}
		return roundAt(name, n, place, mode)
	}
}

func roundAt(name string, n number, place int64, mode apd.Rounder) (any, error) {
	exp := int32(-place)
	switch n.k {
	case kDecimal:
		return decimal.Quantize(n.d, exp, mode), nil
	case kDouble:
		d := decimal.FromFloat64(n.f, decimal.Double34)
		return decimal.ToFloat64(decimal.Quantize(d, exp, mode)), nil
	}
	if place >= 0 {
		return n.value(), nil
	}
	r, ok := decimal.TruncInt64(decimal.Quantize(decimal.FromInt64(n.i), exp, mode))
	if !ok {
		return nil, errf(mongoerr.RoundInvalidConversion, "invalid conversion from Decimal128 result in %s resulting from arguments: [%d, %d]", name, n.i, place)
	}
	return intResult(n.k, r).value(), nil
}
