package expr

// Trigonometric operators ($sin … $radiansToDegrees). Invariants: null,
// undefined or missing input gives null; a non-number fails with 28765
// ($atan2: 51044/51045); integral and double input gives a double, decimal
// input a decimal; NaN passes through; bounded operators reject input
// outside their domain with 50989, naming the bounds as mongod does.

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/decimal"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// trigBounds is an operator's domain: lo/hi and whether each end is
// inclusive; text is mongod's rendering of it in the 50989 message.
type trigBounds struct {
	lo, hi     float64
	loIn, hiIn bool
	text       string
}

var (
	unitBounds   = &trigBounds{lo: -1, hi: 1, loIn: true, hiIn: true, text: "[-1,1]"}
	acoshBounds  = &trigBounds{lo: 1, hi: math.Inf(1), loIn: true, hiIn: true, text: "[1,inf]"}
	finiteBounds = &trigBounds{lo: math.Inf(-1), hi: math.Inf(1), text: "(-inf,inf)"}
)

func (b *trigBounds) contains(f float64) bool {
	if f != f {
		return true // NaN passes through
	}
	loOK := f > b.lo || (b.loIn && f == b.lo)
	hiOK := f < b.hi || (b.hiIn && f == b.hi)
	return loOK && hiOK
}

func registerTrig() {
	trig("$sin", math.Sin, finiteBounds)
	trig("$cos", math.Cos, finiteBounds)
	trig("$tan", math.Tan, finiteBounds)
	trig("$asin", math.Asin, unitBounds)
	trig("$acos", math.Acos, unitBounds)
	trig("$atan", math.Atan, nil)
	trig("$sinh", math.Sinh, nil)
	trig("$cosh", math.Cosh, nil)
	trig("$tanh", math.Tanh, nil)
	trig("$asinh", math.Asinh, nil)
	trig("$acosh", math.Acosh, acoshBounds)
	trig("$atanh", math.Atanh, unitBounds)
	nary("$degreesToRadians", 1, 1, angleConv(math.Pi/180, decimal.Quo(decPi, decimal.FromInt64(180))))
	nary("$radiansToDegrees", 1, 1, angleConv(180/math.Pi, decimal.Quo(decimal.FromInt64(180), decPi)))
	nary("$atan2", 2, 2, evalAtan2)
}

// decPi is π to Decimal128's 34 digits.
var decPi, _ = decimal.Parse("3.141592653589793238462643383279503")

// trig registers a unary operator computed in float64.
// TODO(#14): decimal input is computed through float64 (15 significant
// digits) where mongod uses Decimal128's own 34-digit functions.
func trig(name string, fn func(float64) float64, b *trigBounds) {
	nary(name, 1, 1, func(name string, args []any) (any, error) {
		n, null, err := numericArg(name, args[0], mongoerr.UnaryArithNotNumeric)
		if null || err != nil {
			return nil, err
		}
		f := n.float()
		if b != nil && !b.contains(f) {
			return nil, errf(mongoerr.TrigOutOfBounds, "cannot apply %s to %s, value must be in %s", name, n, b.text)
		}
		if n.k == kDecimal {
			return decimal.FromFloat64(fn(f), decimal.Double15), nil
		}
		return fn(f), nil
	})
}

// angleConv multiplies by a constant: a double for non-decimal input, an
// exact Decimal128 product for decimal input.
func angleConv(f float64, d bson.Decimal128) func(string, []any) (any, error) {
	return func(name string, args []any) (any, error) {
		n, null, err := numericArg(name, args[0], mongoerr.UnaryArithNotNumeric)
		if null || err != nil {
			return nil, err
		}
		if n.k == kDecimal {
			return decimal.Mul(n.d, d), nil
		}
		return n.float() * f, nil
	}
}

// evalAtan2 checks its arguments in order as mongod does: a null first
// argument gives null before the second is looked at.
func evalAtan2(name string, args []any) (any, error) {
	y, null, err := numericArg(name, args[0], mongoerr.TwoNumericFirstNotNumeric)
	if null || err != nil {
		return nil, err
	}
	x, null, err := numericArg(name, args[1], mongoerr.TwoNumericSecondNotNumeric)
	if null || err != nil {
		return nil, err
	}
	r := math.Atan2(y.float(), x.float())
	if y.k == kDecimal || x.k == kDecimal {
		return decimal.FromFloat64(r, decimal.Double15), nil
	}
	return r, nil
}
