package expr

import (
	"math"
	"math/bits"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/decimal"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func registerArith() {
	nary("$add", 0, -1, evalAdd)
	nary("$multiply", 0, -1, evalMultiply)
	nary("$subtract", 2, 2, evalSubtract)
	nary("$divide", 2, 2, evalDivide)
	nary("$mod", 2, 2, evalMod)
	nary("$abs", 1, 1, evalAbs)
	nary("$ceil", 1, 1, unaryRound(math.Ceil, decimal.Ceil))
	nary("$floor", 1, 1, unaryRound(math.Floor, decimal.Floor))
	nary("$round", 1, 2, placeRound(decimal.HalfEven))
	nary("$trunc", 1, 2, placeRound(decimal.Down))
	nary("$sqrt", 1, 1, unaryFloat(math.Sqrt, decimal.Sqrt, func(n number) error {
		if n.sign() < 0 {
			return errf(mongoerr.SqrtNegative, "$sqrt's argument must be greater than or equal to 0")
		}
		return nil
	}))
	nary("$exp", 1, 1, unaryFloat(math.Exp, decimal.Exp, nil))
	nary("$ln", 1, 1, unaryFloat(math.Log, decimal.Ln, func(n number) error {
		if n.sign() <= 0 && !n.isNaN() {
			return errf(mongoerr.LnArgNotPositive, "$ln's argument must be a positive number, but is %s", n)
		}
		return nil
	}))
	nary("$log10", 1, 1, unaryFloat(math.Log10, decimal.Log10, func(n number) error {
		if n.sign() <= 0 && !n.isNaN() {
			return errf(mongoerr.Log10ArgNotPositive, "$log10's argument must be a positive number, but is %s", n)
		}
		return nil
	}))
	nary("$log", 2, 2, evalLog)
	nary("$pow", 2, 2, evalPow)
}

// addNum adds two numbers with MongoDB's widening: int32 overflow becomes
// long, long overflow becomes double; a decimal operand makes the sum an
// exact decimal.
func addNum(a, b number) number {
	k := maxKind(a.k, b.k)
	if k == kDecimal {
		return decNum(decimal.Add(a.dec(), b.dec()))
	}
	if k >= kDouble {
		return number{k: k, f: a.float() + b.float()}
	}
	s := a.i + b.i
	if (s > a.i) != (b.i > 0) {
		return number{k: kDouble, f: float64(a.i) + float64(b.i)}
	}
	return intResult(k, s)
}

func mulNum(a, b number) number {
	k := maxKind(a.k, b.k)
	if k == kDecimal {
		return decNum(decimal.Mul(a.dec(), b.dec()))
	}
	if k >= kDouble {
		return number{k: k, f: a.float() * b.float()}
	}
	hi, lo := bits.Mul64(uint64(abs64(a.i)), uint64(abs64(b.i)))
	if hi != 0 || lo > math.MaxInt64 || a.i == math.MinInt64 || b.i == math.MinInt64 {
		return number{k: kDouble, f: float64(a.i) * float64(b.i)}
	}
	return intResult(k, a.i*b.i)
}

func abs64(i int64) int64 {
	if i < 0 {
		return -i
	}
	return i
}

func evalAdd(name string, args []any) (any, error) {
	sum := number{k: kInt}
	var date *bson.DateTime
	for _, a := range args {
		if IsNullish(a) {
			return nil, nil
		}
		if d, ok := a.(bson.DateTime); ok {
			if date != nil {
				return nil, errf(mongoerr.AddMultipleDates, "only one date allowed in an $add expression")
			}
			date = &d
			continue
		}
		n, ok := toNumber(a)
		if !ok {
			return nil, errf(mongoerr.AddBadType, "$add only supports numeric or date types, not %s", typeName(a))
		}
		if sum.k == kDouble && n.k == kDecimal {
			// MongoDB's AddState widens a double total to 34 digits
			// (later doubles convert to 15).
			sum = decNum(decimal.FromFloat64(sum.f, decimal.Double34))
		}
		sum = addNum(sum, n)
	}
	if date != nil {
		return addToDate(*date, sum), nil
	}
	return sum.value(), nil
}

func addToDate(d bson.DateTime, n number) bson.DateTime {
	if n.k <= kLong {
		return d + bson.DateTime(n.i)
	}
	return d + bson.DateTime(math.Round(n.float()))
}

func evalMultiply(name string, args []any) (any, error) {
	prod := number{k: kInt, i: 1}
	for _, a := range args {
		if IsNullish(a) {
			return nil, nil
		}
		n, ok := toNumber(a)
		if !ok {
			return nil, errf(mongoerr.MultiplyBadType, "$multiply only supports numeric types, not %s", typeName(a))
		}
		prod = mulNum(prod, n)
	}
	return prod.value(), nil
}

func evalSubtract(name string, args []any) (any, error) {
	a, b := args[0], args[1]
	if IsNullish(a) || IsNullish(b) {
		return nil, nil
	}
	da, aDate := a.(bson.DateTime)
	db, bDate := b.(bson.DateTime)
	nb, bNum := toNumber(b)
	switch {
	case aDate && bDate:
		return int64(da) - int64(db), nil
	case aDate && bNum:
		return addToDate(da, nb.neg()), nil
	case aDate:
		return nil, errf(mongoerr.SubtractFromDateBadType, "can't $subtract %s from Date", typeName(b))
	case bDate:
		return nil, errf(mongoerr.SubtractBadTypes, "can't $subtract Date from %s", typeName(a))
	}
	na, aNum := toNumber(a)
	if !aNum || !bNum {
		return nil, errf(mongoerr.SubtractBadTypes, "can't $subtract %s from %s", typeName(b), typeName(a))
	}
	if maxKind(na.k, nb.k) == kDecimal {
		return decimal.Sub(na.dec(), nb.dec()), nil
	}
	if na.k <= kLong && nb.k <= kLong && nb.i == math.MinInt64 {
		return float64(na.i) - float64(nb.i), nil
	}
	return addNum(na, nb.neg()).value(), nil
}

func numArgs(name string, args []any) ([]number, bool, error) {
	out := make([]number, len(args))
	for i, a := range args {
		if IsNullish(a) {
			return nil, true, nil
		}
		n, ok := toNumber(a)
		if !ok {
			return nil, false, errf(mongoerr.ArithArgsNotNumeric, "%s only supports numeric types, not %s and %s", name, typeName(args[0]), typeName(args[len(args)-1]))
		}
		out[i] = n
	}
	return out, false, nil
}

func evalDivide(name string, args []any) (any, error) {
	ns, null, err := numArgs(name, args)
	if null || err != nil {
		return nil, err
	}
	if ns[1].isZero() {
		return nil, errf(mongoerr.BadValue, "can't $divide by zero")
	}
	if maxKind(ns[0].k, ns[1].k) == kDecimal {
		return decimal.Quo(ns[0].dec(), ns[1].dec()), nil
	}
	return ns[0].float() / ns[1].float(), nil
}

func evalMod(name string, args []any) (any, error) {
	ns, null, err := numArgs(name, args)
	if null || err != nil {
		if err != nil {
			err = errf(mongoerr.ModNotNumeric, "$mod only supports numeric types, not %s and %s", typeName(args[0]), typeName(args[1]))
		}
		return nil, err
	}
	a, b := ns[0], ns[1]
	k := maxKind(a.k, b.k)
	if k == kDecimal {
		if b.isZero() {
			return nil, errf(mongoerr.ModDecimalByZero, "can't $mod by zero")
		}
		return decimal.Rem(a.dec(), b.dec()), nil
	}
	if b.isZero() {
		return nil, errf(mongoerr.ModByZero, "can't $mod by zero")
	}
	if k >= kDouble {
		return number{k: k, f: math.Mod(a.float(), b.float())}.value(), nil
	}
	if b.i == -1 {
		return intResult(k, 0).value(), nil
	}
	return intResult(k, a.i%b.i).value(), nil
}

func evalAbs(name string, args []any) (any, error) {
	n, null, err := numericArg(name, args[0], mongoerr.UnaryArithNotNumeric)
	if null || err != nil {
		return nil, err
	}
	if n.k == kDecimal {
		return decimal.Abs(n.d), nil
	}
	if n.k == kDouble {
		return math.Abs(n.f), nil
	}
	if n.i == math.MinInt64 {
		return nil, errf(mongoerr.AbsOfLongMin, "can't take $abs of long long min")
	}
	return intResult(n.k, abs64(n.i)).value(), nil
}

// unaryFloat applies fn to a number after check (when not nil) accepts
// it; the result is a double, or decFn's exact decimal for a decimal input.
func unaryFloat(fn func(float64) float64, decFn func(bson.Decimal128) bson.Decimal128, check func(number) error) func(string, []any) (any, error) {
	return func(name string, args []any) (any, error) {
		n, null, err := numericArg(name, args[0], mongoerr.UnaryArithNotNumeric)
		if null || err != nil {
			return nil, err
		}
		if check != nil {
			if err := check(n); err != nil {
				return nil, err
			}
		}
		if n.k == kDecimal {
			return decFn(n.d), nil
		}
		return fn(n.float()), nil
	}
}

// neg returns -n (int64 minimum wraps; callers check it).
func (n number) neg() number {
	if n.k == kDecimal {
		return decNum(decimal.Neg(n.d))
	}
	return number{k: n.k, i: -n.i, f: -n.f}
}

// String renders n for error messages.
func (n number) String() string {
	switch n.k {
	case kInt, kLong:
		return strconv.FormatInt(n.i, 10)
	case kDecimal:
		return n.d.String()
	}
	return strconv.FormatFloat(n.f, 'g', -1, 64)
}

// numericArg reads a unary numeric operator's argument: null, undefined or
// missing gives null=true (the operator returns null); anything else that
// is not a number fails with code.
func numericArg(name string, a any, code mongoerr.Code) (n number, null bool, err error) {
	if IsNullish(a) {
		return number{}, true, nil
	}
	n, ok := toNumber(a)
	if !ok {
		return number{}, false, errf(code, "%s only supports numeric types, not %s", name, typeName(a))
	}
	return n, false, nil
}
