package expr

import (
	"math"

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
// [-20, 100]; a decimal is quantized exactly to 10^-place with mode.
func placeRound(fn func(float64) float64, mode apd.Rounder) func(string, []any) (any, error) {
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
		if n.k == kDecimal {
			return decimal.Quantize(n.d, int32(-place), mode), nil
		}
		return roundAt(n, place, fn).value(), nil
	}
}

func roundAt(n number, place int64, fn func(float64) float64) number {
	if n.k <= kLong {
		if place >= 0 {
			return n
		}
		if place < -18 {
			return intResult(n.k, 0)
		}
		scale := int64(math.Pow10(int(-place)))
		f := fn(float64(n.i) / float64(scale))
		return intResult(n.k, int64(f)*scale)
	}
	if math.IsNaN(n.f) || math.IsInf(n.f, 0) {
		return n
	}
	scale := math.Pow10(int(place))
	r := fn(n.f*scale) / scale
	if math.IsInf(n.f*scale, 0) {
		r = n.f
	}
	return number{k: n.k, f: r}
}
