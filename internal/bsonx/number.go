package bsonx

import (
	"cmp"
	"math"
	"math/big"
	"math/bits"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// NumClass orders the kinds of number: NaN < -Inf < negative < zero <
// positive < +Inf.
type NumClass int8

// The number classes, in sort order.
const (
	NumNaN NumClass = iota
	NumNegInf
	NumNeg
	NumZero
	NumPos
	NumPosInf
)

// Number is the exact canonical form of a BSON number. For NumNeg and
// NumPos the magnitude is |v| = 2^Exp * (1 + Frac/2^64 + r), where r is the
// part that does not fit 64 fraction bits: r == 0 unless Inexact.
//
// Invariant: two numbers are equal for MongoDB exactly when their Number
// values are equal, and CompareNumbers orders them by exact value. Every
// int32, int64 and double is exact (an int64 needs at most 63 fraction bits
// and a double 52). Only a decimal can be Inexact (0.1, or more than 65
// significant bits); it then also carries its own decimal form
// |v| = 0.DecDigits * 10^DecExp (DecDigits without trailing zeros), which
// orders it against other inexact decimals with the same Exp and Frac.
type Number struct {
	Class     NumClass
	Exp       int32
	Frac      uint64
	Inexact   bool
	DecExp    int32
	DecDigits string
}

// IsNumber reports whether v is a BSON number (int32, int64, double,
// decimal) or a Go int/float32.
func IsNumber(v any) bool {
	switch v.(type) {
	case int32, int64, float64, bson.Decimal128, int, float32:
		return true
	}
	return false
}

// SplitNumber returns the canonical exact form of a number.
func SplitNumber(v any) (Number, bool) {
	switch x := v.(type) {
	case int32:
		return intNumber(int64(x)), true
	case int64:
		return intNumber(x), true
	case int:
		return intNumber(int64(x)), true
	case float64:
		return floatNumber(x), true
	case float32:
		return floatNumber(float64(x)), true
	case bson.Decimal128:
		return decimalNumber(x), true
	}
	return Number{}, false
}

func intNumber(i int64) Number {
	switch {
	case i == 0:
		return Number{Class: NumZero}
	case i < 0:
		n := magnitude(uint64(-i)) // -MinInt64 wraps to 1<<63, as wanted
		n.Class = NumNeg
		return n
	}
	n := magnitude(uint64(i))
	n.Class = NumPos
	return n
}

// magnitude splits a non-zero integer magnitude m into Exp and Frac.
func magnitude(m uint64) Number {
	e := bits.Len64(m) - 1
	return Number{Exp: int32(e), Frac: m << (64 - uint(e))}
}

func floatNumber(f float64) Number {
	switch {
	case f != f:
		return Number{Class: NumNaN}
	case math.IsInf(f, 1):
		return Number{Class: NumPosInf}
	case math.IsInf(f, -1):
		return Number{Class: NumNegInf}
	case f == 0:
		return Number{Class: NumZero}
	}
	b := math.Float64bits(f)
	be := int32(b>>52) & 0x7FF
	mant := b & (1<<52 - 1)
	var n Number
	if be == 0 { // subnormal: value = mant * 2^-1074
		p := bits.Len64(mant) - 1
		n = Number{Exp: int32(p) - 1074, Frac: mant << (64 - uint(p))}
	} else {
		n = Number{Exp: be - 1023, Frac: mant << 12}
	}
	n.Class = NumPos
	if f < 0 {
		n.Class = NumNeg
	}
	return n
}

var maxDecimalCoef = new(big.Int).Sub(new(big.Int).Exp(big.NewInt(10), big.NewInt(34), nil), big.NewInt(1))

// decimalParts returns a decimal's sign, coefficient and exponent
// (|v| = coef * 10^exp), treating out-of-range coefficients as zero as the
// IEEE 754-2008 BID encoding requires. ok is false for NaN and infinities.
func decimalParts(d bson.Decimal128) (neg bool, coef *big.Int, exp int, ok bool) {
	h, _ := d.GetBytes()
	c, e, err := d.BigInt()
	if err != nil {
		return false, nil, 0, false
	}
	neg = h>>63 == 1
	c.Abs(c)
	if c.Cmp(maxDecimalCoef) > 0 {
		c.SetInt64(0)
	}
	return neg, c, e, true
}

func decimalNumber(d bson.Decimal128) Number {
	if d.IsNaN() {
		return Number{Class: NumNaN}
	}
	if s := d.IsInf(); s != 0 {
		if s > 0 {
			return Number{Class: NumPosInf}
		}
		return Number{Class: NumNegInf}
	}
	neg, c, q, _ := decimalParts(d)
	if c.Sign() == 0 {
		return Number{Class: NumZero}
	}
	n := ratioNumber(c, q)
	if n.Inexact {
		n.DecDigits, n.DecExp = decimalDigits(c, q)
	}
	n.Class = NumPos
	if neg {
		n.Class = NumNeg
	}
	return n
}

var bigTen = big.NewInt(10)

// ratioNumber splits |v| = c * 10^q (c > 0) into Exp, Frac and Inexact.
func ratioNumber(c *big.Int, q int) Number {
	num, den := new(big.Int).Set(c), big.NewInt(1)
	p := new(big.Int).Exp(bigTen, big.NewInt(int64(abs(q))), nil)
	if q >= 0 {
		num.Mul(num, p)
	} else {
		den = p
	}
	e := num.BitLen() - den.BitLen()
	if shiftCmp(num, den, e) < 0 {
		e--
	}
	// T = floor(num * 2^(64-e) / den) has exactly 65 bits.
	if s := 64 - e; s >= 0 {
		num.Lsh(num, uint(s))
	} else {
		den = new(big.Int).Lsh(den, uint(-s))
	}
	quo, rem := new(big.Int).QuoRem(num, den, new(big.Int))
	return Number{Exp: int32(e), Frac: quo.Uint64(), Inexact: rem.Sign() != 0}
}

// shiftCmp compares num with den * 2^e.
func shiftCmp(num, den *big.Int, e int) int {
	if e >= 0 {
		return num.Cmp(new(big.Int).Lsh(den, uint(e)))
	}
	return new(big.Int).Lsh(num, uint(-e)).Cmp(den)
}

// decimalDigits returns c * 10^q as 0.digits * 10^exp with no trailing
// zeros in digits.
func decimalDigits(c *big.Int, q int) (string, int32) {
	s := c.String()
	t := strings.TrimRight(s, "0")
	q += len(s) - len(t)
	return t, int32(q + len(t))
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// CompareNumbers orders two numbers by exact value.
func CompareNumbers(a, b Number) int {
	if a.Class != b.Class {
		return cmp.Compare(int(a.Class), int(b.Class))
	}
	switch a.Class {
	case NumPos:
		return compareMagnitude(a, b)
	case NumNeg:
		return -compareMagnitude(a, b)
	}
	return 0
}

func compareMagnitude(a, b Number) int {
	if c := cmp.Compare(int(a.Exp), int(b.Exp)); c != 0 {
		return c
	}
	if a.Frac != b.Frac {
		return cmp.Compare(a.Frac, b.Frac)
	}
	if a.Inexact != b.Inexact {
		return cmpBool(a.Inexact, b.Inexact)
	}
	if c := cmp.Compare(int(a.DecExp), int(b.DecExp)); c != 0 {
		return c
	}
	return strings.Compare(a.DecDigits, b.DecDigits)
}
