package expr

import (
	"math"

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
	x, b := ns[0].float(), ns[1].float()
	if x <= 0 {
		return nil, errf(mongoerr.LogArgNotPositive, "$log's argument must be a positive number, but is %v", x)
	}
	if b <= 0 || b == 1 {
		return nil, errf(mongoerr.LogBaseInvalid, "$log's base must be a positive number not equal to 1, but is %v", b)
	}
	r := math.Log(x) / math.Log(b)
	if maxKind(ns[0].k, ns[1].k) == kDecimal {
		return decimalFromFloat(r), nil
	}
	return r, nil
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
	if base.float() == 0 && exp.float() < 0 {
		return nil, errf(mongoerr.PowZeroNegativeExponent, "$pow cannot take a base of 0 and a negative exponent")
	}
	k := maxKind(base.k, exp.k)
	if k <= kLong && exp.i >= 0 {
		if r, ok := intPow(base.i, exp.i); ok {
			return intResult(k, r).value(), nil
		}
	}
	r := math.Pow(base.float(), exp.float())
	if k == kDecimal {
		return decimalFromFloat(r), nil
	}
	return r, nil
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
