package expr

import (
	"math"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// unaryRound implements $ceil and $floor: integers round to themselves.
func unaryRound(fn func(float64) float64) func(string, []any) (any, error) {
	return func(name string, args []any) (any, error) {
		n, null, err := numericArg(name, args[0], mongoerr.UnaryArithNotNumeric)
		if null || err != nil {
			return nil, err
		}
		if n.k <= kLong {
			return args[0], nil // integers round to themselves, type kept
		}
		return number{k: n.k, f: fn(n.f)}.value(), nil
	}
}

// placeRound implements $round and $trunc: [number, place], place in
// [-20, 100].
func placeRound(fn func(float64) float64) func(string, []any) (any, error) {
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
