package bsonx

import (
	"fmt"
	"math"
	"math/big"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// NumberValue rebuilds a value from its canonical form, choosing the
// narrowest type that holds it exactly: int64 for integers in int64 range
// (zero included, so -0 comes back as 0), float64 for other values a
// double holds (and NaN, ±Inf), Decimal128 otherwise. The result compares
// equal to every number n was split from.
func NumberValue(n Number) (any, error) {
	switch n.Class {
	case NumNaN:
		return math.NaN(), nil
	case NumNegInf:
		return math.Inf(-1), nil
	case NumPosInf:
		return math.Inf(1), nil
	case NumZero:
		return int64(0), nil
	}
	neg := n.Class == NumNeg
	if n.Inexact {
		return digitsDecimal(neg, n.DecDigits, int(n.DecExp)-len(n.DecDigits))
	}
	if i, ok := exactInt64(neg, n); ok {
		return i, nil
	}
	if f, ok := exactFloat(neg, n); ok {
		return f, nil
	}
	return dyadicDecimal(neg, n)
}

// exactInt64 returns the value when it is an integer in int64 range.
func exactInt64(neg bool, n Number) (int64, bool) {
	if n.Exp < 0 || n.Exp > 63 || n.Frac<<uint(n.Exp) != 0 {
		return 0, false // fraction bits below the units place, or too big
	}
	m := uint64(1)<<uint(n.Exp) | n.Frac>>(64-uint(n.Exp))
	switch {
	case !neg && m <= math.MaxInt64:
		return int64(m), true
	case neg && m <= 1<<63:
		return -int64(m), true // -(1<<63) wraps to MinInt64 exactly
	}
	return 0, false
}

// exactFloat returns the value when a float64 holds it exactly.
func exactFloat(neg bool, n Number) (float64, bool) {
	if n.Exp > 1023 || n.Exp < -1074 {
		return 0, false
	}
	fracBits := 52 // fraction bits a double keeps at this exponent
	if n.Exp < -1022 {
		fracBits = int(n.Exp) + 1074
	}
	if fracBits < 64 && n.Frac<<uint(fracBits) != 0 {
		return 0, false
	}
	f := math.Ldexp(1+float64(n.Frac>>11)/(1<<53), int(n.Exp))
	if neg {
		f = -f
	}
	return f, true
}

// dyadicDecimal builds the Decimal128 equal to ±2^Exp * (1 + Frac/2^64).
func dyadicDecimal(neg bool, n Number) (any, error) {
	m := new(big.Int).SetUint64(n.Frac)
	m.SetBit(m, 64, 1)
	k := int(n.Exp) - 64 // value = m * 2^k
	exp := 0
	if k >= 0 {
		m.Lsh(m, uint(k))
	} else {
		m.Mul(m, new(big.Int).Exp(big.NewInt(5), big.NewInt(int64(-k)), nil))
		exp = k // m * 5^-k * 10^k == m * 2^k
	}
	s := m.String()
	t := strings.TrimRight(s, "0")
	return digitsDecimal(neg, t, exp+len(s)-len(t))
}

// digitsDecimal builds ±digits * 10^exp as a Decimal128.
func digitsDecimal(neg bool, digits string, exp int) (any, error) {
	if len(digits) > 34 {
		return nil, fmt.Errorf("bsonx: %d significant digits do not fit a decimal128", len(digits))
	}
	c, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return nil, fmt.Errorf("bsonx: bad decimal digits %q", digits)
	}
	if neg {
		c.Neg(c)
	}
	d, ok := bson.ParseDecimal128FromBigInt(c, exp)
	if !ok {
		return nil, fmt.Errorf("bsonx: %se%d is out of decimal128 range", digits, exp)
	}
	return d, nil
}
