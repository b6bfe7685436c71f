package expr

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/decimal"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Compare orders two expression values as MongoDB does; Missing ranks with
// undefined, below null.
func Compare(a, b any) int {
	return bsonx.Compare(forCompare(a), forCompare(b))
}

func forCompare(v any) any {
	if IsMissing(v) {
		return bson.Undefined{}
	}
	return v
}

// Truthy is MongoDB's coercion to bool: false, null, undefined, Missing and
// numeric zero are false; everything else (including "" and []) is true.
func Truthy(v any) bool {
	switch t := v.(type) {
	case bool:
		return t
	case nil, MissingValue, bson.Undefined:
		return false
	case int32:
		return t != 0
	case int64:
		return t != 0
	case float64:
		return t != 0
	case bson.Decimal128:
		return !t.IsZero()
	}
	return true
}

func typeName(v any) string {
	if IsMissing(v) {
		return "missing"
	}
	if a := bsonx.TypeAlias(v); a != "" {
		return a
	}
	return "unknown"
}

// numKind orders numeric types by width: arithmetic results take the
// widest kind of their operands.
type numKind int

const (
	kInt numKind = iota
	kLong
	kDouble
	kDecimal
)

type number struct {
	k numKind
	i int64           // kInt, kLong
	f float64         // kDouble
	d bson.Decimal128 // kDecimal: decimal arithmetic is exact (package decimal)
}

func toNumber(v any) (number, bool) {
	switch t := v.(type) {
	case int32:
		return number{k: kInt, i: int64(t)}, true
	case int64:
		return number{k: kLong, i: t}, true
	case float64:
		return number{k: kDouble, f: t}, true
	case bson.Decimal128:
		return number{k: kDecimal, d: t}, true
	case int:
		return number{k: kLong, i: int64(t)}, true
	}
	return number{}, false
}

func decNum(d bson.Decimal128) number { return number{k: kDecimal, d: d} }

func (n number) float() float64 {
	switch n.k {
	case kInt, kLong:
		return float64(n.i)
	case kDecimal:
		return decimal.ToFloat64(n.d)
	}
	return n.f
}

// dec converts n to a decimal as MongoDB's Value::coerceToDecimal does:
// integers exactly, doubles to 15 significant digits.
func (n number) dec() bson.Decimal128 {
	switch n.k {
	case kInt, kLong:
		return decimal.FromInt64(n.i)
	case kDouble:
		return decimal.FromFloat64(n.f, decimal.Double15)
	}
	return n.d
}

// isZero reports whether n is a zero of any type (not NaN).
func (n number) isZero() bool {
	switch n.k {
	case kInt, kLong:
		return n.i == 0
	case kDecimal:
		return decimal.Sign(n.d) == 0 && !n.d.IsNaN()
	}
	return n.f == 0
}

// sign is -1, 0 or 1; NaN is 0.
func (n number) sign() int {
	switch n.k {
	case kInt, kLong:
		return cmpInt(n.i, 0)
	case kDecimal:
		return decimal.Sign(n.d)
	}
	switch {
	case n.f < 0:
		return -1
	case n.f > 0:
		return 1
	}
	return 0
}

func (n number) isNaN() bool {
	return (n.k == kDouble && n.f != n.f) || (n.k == kDecimal && n.d.IsNaN())
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// value converts n back to a BSON value of its kind.
func (n number) value() any {
	switch n.k {
	case kInt:
		return int32(n.i)
	case kLong:
		return n.i
	case kDouble:
		return n.f
	}
	return n.d
}

// intResult returns an integer result of kind k (kInt or kLong), widening
// to long when it does not fit an int32.
func intResult(k numKind, i int64) number {
	if k == kInt && (i < math.MinInt32 || i > math.MaxInt32) {
		k = kLong
	}
	return number{k: k, i: i}
}

func maxKind(a, b numKind) numKind {
	if a > b {
		return a
	}
	return b
}

// asInt returns an integral numeric value as int64 (doubles must be
// integral and in range).
func asInt(v any) (int64, bool) {
	if !bsonx.IsNumber(v) {
		return 0, false
	}
	return bsonx.AsInt64(v)
}

// asInt32Arg validates an argument that must be a 32-bit integral number.
func asInt32Arg(v any) (int64, bool) {
	i, ok := asInt(v)
	if !ok || i < math.MinInt32 || i > math.MaxInt32 {
		return 0, false
	}
	return i, true
}

func errf(code mongoerr.Code, format string, args ...any) error {
	return mongoerr.New(code, format, args...)
}

// TypeName returns v's $type name ("missing" for Missing).
func TypeName(v any) string { return typeName(v) }
