// Package decimal converts BSON Decimal128 values to and from
// github.com/cockroachdb/apd/v3 decimals and does their arithmetic as
// IEEE 754-2008 decimal128 does (and so as MongoDB does).
//
// Invariants:
//   - Context is decimal128: 34 significant digits, adjusted exponents in
//     [-6143, 6144], subnormals down to 1E-6176, rounding half-even, no
//     traps (overflow gives ±Infinity, invalid operations give NaN).
//   - ToAPD is exact for every Decimal128, including -0, NaN and ±Infinity;
//     non-canonical coefficients (above 10^34-1) read as zero, as the BID
//     encoding requires.
//   - FromAPD rounds to Context first, then clamps exponents above 6111 by
//     padding the coefficient with zeros (IEEE "clamped"), so
//     FromAPD(ToAPD(d)) has d's value, sign and exponent (for canonical d).
//   - No arithmetic is written here by hand: every operation is apd's.
//
// TODO(#14): not yet as MongoDB: Rem when the integer quotient needs more
// than 34 digits (NaN; MongoDB's bid128_fmod answers); transcendental
// results ($exp, $ln, $log, $log10, non-integer $pow) are correctly rounded
// by apd and may differ from Intel's library in the last digit or in the
// exponent of an exact result.
package decimal

import (
	"math/big"

	"github.com/cockroachdb/apd/v3"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The decimal128 format's limits.
const (
	Precision   = 34
	MaxExponent = 6144  // largest adjusted exponent (Emax)
	MinExponent = -6143 // smallest normal adjusted exponent (Emin)
	maxQ        = 6111  // largest stored exponent (Emax - Precision + 1)
	minQ        = -6176 // smallest stored exponent (Etiny)
	bias        = 6176
)

// Context is decimal128 arithmetic. Its methods do not modify it, so it is
// safe for concurrent use.
var Context = &apd.Context{
	Precision:   Precision,
	MaxExponent: MaxExponent,
	MinExponent: MinExponent,
	Rounding:    apd.RoundHalfEven,
}

var maxCoef = new(big.Int).Sub(new(big.Int).Exp(big.NewInt(10), big.NewInt(Precision), nil), big.NewInt(1))

// NaN is MongoDB's quiet NaN decimal.
var NaN = bson.NewDecimal128(0x7c00<<48, 0)

// ToAPD returns d as an apd decimal, exactly.
func ToAPD(d bson.Decimal128) *apd.Decimal {
	h, l := d.GetBytes()
	neg := h>>63 == 1
	switch {
	case d.IsNaN():
		return &apd.Decimal{Form: apd.NaN}
	case d.IsInf() != 0:
		return &apd.Decimal{Form: apd.Infinite, Negative: neg}
	}
	var coef big.Int
	var exp int
	if h>>61&3 == 3 { // "11" combination: coefficient 100 + ... > 10^34-1
		exp = int(h>>47&0x3fff) - bias
	} else {
		exp = int(h>>49&0x3fff) - bias
		coef.SetUint64(h & (1<<49 - 1))
		coef.Lsh(&coef, 64)
		coef.Or(&coef, new(big.Int).SetUint64(l))
		if coef.Cmp(maxCoef) > 0 {
			coef.SetInt64(0)
		}
	}
	r := apd.NewWithBigInt(new(apd.BigInt).SetMathBigInt(&coef), int32(exp))
	r.Negative = neg
	return r
}

// FromAPD returns x rounded to decimal128.
func FromAPD(x *apd.Decimal) bson.Decimal128 {
	var sign uint64
	if x.Negative {
		sign = 1 << 63
	}
	switch x.Form {
	case apd.NaN, apd.NaNSignaling:
		return NaN
	case apd.Infinite:
		return bson.NewDecimal128(sign|0x7800<<48, 0)
	}
	var r apd.Decimal
	if _, err := Context.Round(&r, x); err != nil || r.Form != apd.Finite {
		if r.Form == apd.Infinite {
			return bson.NewDecimal128(sign|0x7800<<48, 0)
		}
		return NaN
	}
	coef := r.Coeff.MathBigInt()
	exp := int(r.Exponent)
	if coef.Sign() == 0 { // zeros clamp both ways
		exp = max(minQ, min(maxQ, exp))
	}
	if exp > maxQ { // clamped: pad the coefficient (fits, adjusted <= Emax)
		coef.Mul(coef, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(exp-maxQ)), nil))
		exp = maxQ
	}
	if exp < minQ || coef.Cmp(maxCoef) > 0 {
		return NaN // cannot happen after Round; kept as a guard
	}
	lo := new(big.Int).And(coef, new(big.Int).SetUint64(^uint64(0))).Uint64()
	hi := new(big.Int).Rsh(coef, 64).Uint64()
	return bson.NewDecimal128(sign|uint64(exp+bias)<<49|hi, lo)
}
