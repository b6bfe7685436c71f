package update

import (
	"fmt"
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/decimal"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// arithLeaf implements $inc and $mul with MongoDB's numeric promotion:
// int32 overflow widens to int64, int64 overflow is an error, any double
// operand makes the result a double, and any decimal operand makes it an
// exact decimal (SafeNum: a double converts to 15 significant digits).
func (st *state) arithLeaf(o *op) leafFn {
	name, verb := "$inc", "$inc"
	if o.kind == opMul {
		name, verb = "$mul", "$mul"
	}
	return func(old any, exists bool, p []string) (any, action, error) {
		if !exists {
			if o.kind == opMul {
				return mulZero(o.arg), actSet, nil
			}
			return o.arg, actSet, nil
		}
		if !isArithNumber(old) {
			return nil, actNone, mongoerr.New(mongoerr.TypeMismatch,
				"Cannot apply %s to a value of non-numeric type. {%s} has the field '%s' of non-numeric type %s",
				name, st.idElem(), p[len(p)-1], typeName(old))
		}
		r, err := arith(o.kind, old, o.arg)
		if err != nil {
			return nil, actNone, err
		}
		if r == nil {
			return nil, actNone, mongoerr.New(mongoerr.BadValue,
				"Failed to apply %s operations to current value (%s) for document {%s}", verb, debugNum(old), st.idElem())
		}
		if arithIdentical(r, old) {
			return nil, actNone, nil
		}
		return r, actSet, nil
	}
}

func isArithNumber(v any) bool {
	switch v.(type) {
	case int32, int64, float64, int, bson.Decimal128:
		return true
	}
	return false
}

// mulZero is the value $mul creates for a missing field: 0 of arg's type
// (MongoDB multiplies arg by int32 0: a decimal keeps arg's exponent).
func mulZero(arg any) any {
	switch x := arg.(type) {
	case int32:
		return int32(0)
	case float64:
		return x * 0
	case bson.Decimal128:
		return decimal.Mul(x, decimal.FromInt64(0))
	}
	return int64(0)
}

// arith computes a (op) b; nil means int64 overflow.
func arith(k opKind, a, b any) (any, error) {
	if d, ok := decimalArith(k, a, b); ok {
		return d, nil
	}
	ai, aInt := asInt(a)
	bi, bInt := asInt(b)
	if !aInt || !bInt {
		fa, fb := asFloat(a), asFloat(b)
		if k == opMul {
			return fa * fb, nil
		}
		return fa + fb, nil
	}
	_, a32 := a.(int32)
	_, b32 := b.(int32)
	if a32 && b32 {
		r := int64(ai) + int64(bi)
		if k == opMul {
			r = ai * bi
		}
		if r >= math.MinInt32 && r <= math.MaxInt32 {
			return int32(r), nil
		}
		return r, nil
	}
	r, ok := addInt64(ai, bi)
	if k == opMul {
		r, ok = mulInt64(ai, bi)
	}
	if !ok {
		return nil, nil
	}
	return r, nil
}

// arithIdentical reports whether $inc/$mul changed nothing, as SafeNum's
// isIdentical: same type and, for decimals, numerically equal (1.0 * 1.0
// = 1.00 keeps 1.0; NaN is never identical).
func arithIdentical(r, old any) bool {
	rd, rDec := r.(bson.Decimal128)
	od, oDec := old.(bson.Decimal128)
	if rDec && oDec {
		switch {
		case rd.IsNaN() || od.IsNaN():
			return false
		case rd.IsInf() != 0 || od.IsInf() != 0:
			return rd.IsInf() == od.IsInf()
		}
		return decimal.Sign(decimal.Sub(rd, od)) == 0
	}
	return identical(r, old)
}

// decimalArith computes a (op) b exactly when either is a decimal.
func decimalArith(k opKind, a, b any) (bson.Decimal128, bool) {
	_, aDec := a.(bson.Decimal128)
	_, bDec := b.(bson.Decimal128)
	if !aDec && !bDec {
		return bson.Decimal128{}, false
	}
	da, db := toDecimal(a), toDecimal(b)
	if k == opMul {
		return decimal.Mul(da, db), true
	}
	return decimal.Add(da, db), true
}

// toDecimal converts a number as MongoDB's SafeNum::getDecimal.
func toDecimal(v any) bson.Decimal128 {
	switch x := v.(type) {
	case bson.Decimal128:
		return x
	case float64:
		return decimal.FromFloat64(x, decimal.Double15)
	}
	i, _ := asInt(v)
	return decimal.FromInt64(i)
}

func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case int:
		return int64(x), true
	}
	return 0, false
}

func asFloat(v any) float64 {
	if i, ok := asInt(v); ok {
		return float64(i)
	}
	f, _ := v.(float64)
	return f
}

func addInt64(a, b int64) (int64, bool) {
	r := a + b
	if (b > 0 && r < a) || (b < 0 && r > a) {
		return 0, false
	}
	return r, true
}

func mulInt64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	r := a * b
	if r/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return r, true
}

// debugNum renders a number as MongoDB's SafeNum debug string.
func debugNum(v any) string {
	switch x := v.(type) {
	case int32:
		return fmt.Sprintf("(NumberInt)%d", x)
	case int64:
		return fmt.Sprintf("(NumberLong)%d", x)
	case float64:
		return fmt.Sprintf("(NumberDouble)%v", x)
	}
	return fmtValue(v)
}
