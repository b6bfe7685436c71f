package decimal

import (
	"math"
	"strconv"

	"github.com/cockroachdb/apd/v3"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// FromInt64 returns i as a decimal with exponent 0 (exact).
func FromInt64(i int64) bson.Decimal128 {
	return FromAPD(apd.New(i, 0))
}

// Digits of a double's conversion: MongoDB's Decimal128(double) keeps 15
// significant digits (kRoundTo15Digits, trailing zeros kept: 1.9 becomes
// 1.90000000000000) unless asked for 34 (kRoundTo34Digits).
const (
	Double15 = 15
	Double34 = 34
)

// FromFloat64 returns f rounded half-even to digits significant digits,
// keeping trailing zeros, as MongoDB's Decimal128(double, precision).
func FromFloat64(f float64, digits int) bson.Decimal128 {
	switch {
	case math.IsNaN(f):
		return NaN
	case math.IsInf(f, 0) || f == 0:
		d := apd.Decimal{Negative: math.Signbit(f)}
		if math.IsInf(f, 0) {
			d.Form = apd.Infinite
		}
		return FromAPD(&d)
	}
	// As MongoDB: the double to 34 digits (binary64_to_bid128; strconv
	// rounds the exact binary value, ties to even), then that decimal
	// rounded again to digits.
	d, _, err := apd.NewFromString(strconv.FormatFloat(f, 'e', Double34-1, 64))
	if err != nil {
		return NaN
	}
	c := *Context
	c.Precision = uint32(digits)
	if _, err := c.Round(d, d); err != nil {
		return NaN
	}
	return FromAPD(d)
}

// Parse reads a decimal string (MongoDB's forms: digits with an optional
// exponent, "NaN", "Inf", "Infinity", signed), rounding to 34 digits.
// ok is false when s is not a number or, as MongoDB's NumberParser, when
// it overflows or underflows decimal128 (rounding alone is fine).
func Parse(s string) (bson.Decimal128, bool) {
	d, _, err := apd.NewFromString(s)
	if err != nil || d.Form == apd.NaNSignaling {
		return NaN, false
	}
	var r apd.Decimal
	cond, err := Context.Round(&r, d)
	if err != nil || cond.Overflow() || cond.Underflow() {
		return NaN, false
	}
	return FromAPD(&r), true
}

// ToFloat64 returns d as the nearest double (±Inf beyond its range).
func ToFloat64(d bson.Decimal128) float64 {
	f, err := strconv.ParseFloat(ToAPD(d).Text('e'), 64)
	if err != nil && !math.IsInf(f, 0) {
		return math.NaN()
	}
	return f
}

type binary func(c *apd.Context, d, x, y *apd.Decimal) (apd.Condition, error)
type unary func(c *apd.Context, d, x *apd.Decimal) (apd.Condition, error)

func apply2(op binary, a, b bson.Decimal128) bson.Decimal128 {
	var r apd.Decimal
	if _, err := op(Context, &r, ToAPD(a), ToAPD(b)); err != nil {
		return NaN
	}
	return FromAPD(&r)
}

func apply1(op unary, a bson.Decimal128) bson.Decimal128 {
	var r apd.Decimal
	if _, err := op(Context, &r, ToAPD(a)); err != nil {
		return NaN
	}
	return FromAPD(&r)
}

// Add returns a + b.
func Add(a, b bson.Decimal128) bson.Decimal128 { return apply2((*apd.Context).Add, a, b) }

// Sub returns a - b.
func Sub(a, b bson.Decimal128) bson.Decimal128 { return apply2((*apd.Context).Sub, a, b) }

// Mul returns a * b.
func Mul(a, b bson.Decimal128) bson.Decimal128 { return apply2((*apd.Context).Mul, a, b) }

// Quo returns a / b (±Infinity for a non-zero a over zero, NaN for 0/0);
// an exact quotient takes the ideal exponent exp(a) - exp(b) where it can,
// as IEEE 754 requires (1/4 is 0.25, not 0.2500...).
func Quo(a, b bson.Decimal128) bson.Decimal128 {
	x, y := ToAPD(a), ToAPD(b)
	var r apd.Decimal
	cond, err := Context.Quo(&r, x, y)
	if err != nil {
		return NaN
	}
	return FromAPD(ideal(&r, cond, int64(x.Exponent)-int64(y.Exponent)))
}

// ideal moves an exact finite result r to the exponent closest to want
// (dropping or adding trailing zeros only).
func ideal(r *apd.Decimal, cond apd.Condition, want int64) *apd.Decimal {
	if cond.Inexact() || r.Form != apd.Finite || want < minQ || want > maxQ {
		return r
	}
	var red apd.Decimal
	red.Reduce(r)
	if int64(red.Exponent) <= want {
		return &red
	}
	if _, err := Context.Quantize(&red, &red, int32(want)); err != nil || red.Form != apd.Finite {
		return r
	}
	return &red
}

// Rem returns a - b*trunc(a/b), the sign of a (C's fmod, as MongoDB's $mod).
// TODO(#14): NaN when trunc(a/b) needs more than 34 digits; MongoDB's
// bid128_fmod still answers.
func Rem(a, b bson.Decimal128) bson.Decimal128 { return apply2((*apd.Context).Rem, a, b) }

// Pow returns a ** b: ±Infinity on overflow and ±0 on underflow (negative
// only for a negative a and an odd integer b), NaN for a negative a and a
// non-integer b.
func Pow(a, b bson.Decimal128) bson.Decimal128 {
	x, y := ToAPD(a), ToAPD(b)
	var r apd.Decimal
	cond, err := Context.Pow(&r, x, y)
	if err == nil {
		return FromAPD(&r)
	}
	// apd reports results past its own exponent limits as errors.
	switch {
	case cond.Overflow():
		r = apd.Decimal{Form: apd.Infinite}
	case cond.Underflow():
		r = apd.Decimal{Exponent: minQ}
	default:
		return NaN
	}
	r.Negative = x.Negative && oddInteger(y)
	return FromAPD(&r)
}

// oddInteger reports whether y is an odd integer (an integer too large for
// Rem has a positive exponent, so it is even).
func oddInteger(y *apd.Decimal) bool {
	var rem apd.Decimal
	if _, err := Context.Rem(&rem, y, apd.New(2, 0)); err != nil || rem.Form != apd.Finite {
		return false
	}
	return rem.Cmp(apd.New(1, 0)) == 0 || rem.Cmp(apd.New(-1, 0)) == 0
}

// Abs returns |a|.
func Abs(a bson.Decimal128) bson.Decimal128 { return apply1((*apd.Context).Abs, a) }

// Neg returns -a.
func Neg(a bson.Decimal128) bson.Decimal128 { return apply1((*apd.Context).Neg, a) }

// Ceil returns the least integer >= a (NaN and ±Infinity unchanged).
func Ceil(a bson.Decimal128) bson.Decimal128 { return integral((*apd.Context).Ceil, a) }

// Floor returns the greatest integer <= a (NaN and ±Infinity unchanged).
func Floor(a bson.Decimal128) bson.Decimal128 { return integral((*apd.Context).Floor, a) }

// integral applies apd's Ceil or Floor, which do not pass specials through.
func integral(op unary, a bson.Decimal128) bson.Decimal128 {
	if a.IsNaN() || a.IsInf() != 0 {
		return a
	}
	return apply1(op, a)
}

// Sqrt returns the square root of a (NaN for a negative a); an exact root
// takes the ideal exponent floor(exp(a)/2).
func Sqrt(a bson.Decimal128) bson.Decimal128 {
	x := ToAPD(a)
	var r apd.Decimal
	cond, err := Context.Sqrt(&r, x)
	if err != nil {
		return NaN
	}
	e := int64(x.Exponent)
	if e < 0 {
		e--
	}
	return FromAPD(ideal(&r, cond, e/2))
}

// Exp returns e ** a.
func Exp(a bson.Decimal128) bson.Decimal128 { return apply1((*apd.Context).Exp, a) }

// Ln returns the natural logarithm of a.
func Ln(a bson.Decimal128) bson.Decimal128 { return apply1((*apd.Context).Ln, a) }

// Log10 returns the base-10 logarithm of a; for a power of ten it is the
// integer with exponent 0.
func Log10(a bson.Decimal128) bson.Decimal128 {
	x := ToAPD(a)
	var red apd.Decimal
	red.Reduce(x)
	if red.Form == apd.Finite && !red.Negative && red.Coeff.IsInt64() && red.Coeff.Int64() == 1 {
		return FromInt64(int64(red.Exponent)) // a power of ten
	}
	var r apd.Decimal
	if _, err := Context.Log10(&r, x); err != nil {
		return NaN
	}
	return FromAPD(&r)
}

// Log returns the logarithm of a in base b: ln(a) / ln(b), each to 34
// digits.
func Log(a, b bson.Decimal128) bson.Decimal128 { return Quo(Ln(a), Ln(b)) }

// Rounding modes for Quantize.
const (
	HalfEven = apd.RoundHalfEven
	Down     = apd.RoundDown
)

// Quantize rounds a to exponent exp (a multiple of 10^exp) with mode, as
// IEEE 754 quantize: 1.5 at exponent -2 is 1.50; NaN when the result would
// need more than 34 digits. NaN and ±Infinity come back unchanged (MongoDB
// returns an infinite $round/$trunc argument as it is).
func Quantize(a bson.Decimal128, exp int32, mode apd.Rounder) bson.Decimal128 {
	x := ToAPD(a)
	if x.Form != apd.Finite {
		return a
	}
	c := *Context
	c.Rounding = mode
	var r apd.Decimal
	if _, err := c.Quantize(&r, x, exp); err != nil || r.Form != apd.Finite {
		return NaN
	}
	return FromAPD(&r)
}

// Sign returns -1, 0 or 1 (0 for NaN and zeros).
func Sign(a bson.Decimal128) int { return ToAPD(a).Sign() }

// IsNaN reports whether a is NaN.
func IsNaN(a bson.Decimal128) bool { return a.IsNaN() }

// TruncInt64 returns a truncated toward zero as an int64; ok is false for
// NaN, ±Infinity and values outside int64's range.
func TruncInt64(a bson.Decimal128) (int64, bool) {
	x := ToAPD(a)
	if x.Form != apd.Finite {
		return 0, false
	}
	if x.Exponent < 0 {
		c := *Context
		c.Rounding = Down
		if _, err := c.Quantize(x, x, 0); err != nil || x.Form != apd.Finite {
			return 0, false
		}
	}
	i, err := x.Int64()
	return i, err == nil
}
