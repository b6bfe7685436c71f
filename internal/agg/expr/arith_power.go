package expr

import (
	"math"

	"github.com/relaydb/relaydb/internal/decimal"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// evalLog implements $log: [number, base].
func evalLog(name string, args []any) (any, error) {
	ns, null, err := numArgs(name, args)
	if null || err != nil {
		if err != nil {
			err = errf(mongoerr.LogArgNotNumeric, "$log's argument must be numeric, not %s", typeName(args[0]))
		}
		return nil, err
	}
	x, b := ns[0], ns[1]
	if x.sign() <= 0 && !x.isNaN() {
		return nil, errf(mongoerr.LogArgNotPositive, "$log's argument must be a positive number, but is %s", x)
	}
	if (b.sign() <= 0 && !b.isNaN()) || (b.k != kDecimal && b.float() == 1) || (b.k == kDecimal && decimal.Sign(decimal.Sub(b.d, decimal.FromInt64(1))) == 0) {
		return nil, errf(mongoerr.LogBaseInvalid, "$log's base must be a positive number not equal to 1, but is %s", b)
	}
	if maxKind(x.k, b.k) == kDecimal {
		return decimal.Log(x.dec(), b.dec()), nil
	}
	return math.Log(x.float()) / math.Log(b.float()), nil
}

// evalPow implements $pow: [base, exponent]; integral powers stay integers
// while they fit in a long.
func evalPow(name string, args []any) (any, error) {
	ns, null, err := numArgs(name, args)
	if null || err != nil {
		if err != nil {
			err = errf(mongoerr.PowBaseNotNumeric, "$pow's base must be numeric, not %s", typeName(args[0]))
		}
		return nil, err
	}
	base, exp := ns[0], ns[1]
	if base.isZero() && exp.sign() < 0 {
		return nil, errf(mongoerr.PowZeroNegativeExponent, "$pow cannot take a base of 0 and a negative exponent")
	}
	k := maxKind(base.k, exp.k)
	if k <= kLong && exp.i >= 0 {
		if r, ok := intPow(base.i, exp.i); ok {
			return intResult(k, r).value(), nil
		}
	}
	if k == kDecimal {
		return decimal.Pow(base.dec(), exp.dec()), nil
	}
	return math.Pow(base.float(), exp.float()), nil
}

// intPow computes b^e exactly, reporting false on int64 overflow.
func intPow(b, e int64) (int64, bool) {
	switch b {
	case 0, 1:
		if e == 0 {
			return 1, true
		}
		return b, true
	case -1:
		if e%2 == 0 {
			return 1, true
		}
		return -1, true
	}
	if e > 63 {
		return 0, false
	}
	r := number{k: kLong, i: 1}
	x := number{k: kLong, i: b}
	for ; e > 0; e-- {
		if r = mulNum(r, x); r.k != kLong {
			return 0, false
		}
	}
	return r.i, true
}
