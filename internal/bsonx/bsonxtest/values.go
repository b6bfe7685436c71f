// Package bsonxtest provides BSON values for tests: a fixed list of edge
// values in ascending MongoDB order and a seeded random value generator.
// It is imported only by tests.
package bsonxtest

import (
	"math"
	"math/rand"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Dec parses a decimal128 literal and panics on a bad one.
func Dec(s string) bson.Decimal128 {
	d, err := bson.ParseDecimal128(s)
	if err != nil {
		panic(err)
	}
	return d
}

func oid(b byte) bson.ObjectID {
	var o bson.ObjectID
	o[11] = b
	return o
}

// Ascending returns groups of values in strictly ascending MongoDB order;
// the values inside one group are all equal to each other.
func Ascending() [][]any {
	return [][]any{
		{bson.MinKey{}},
		{bson.Undefined{}},
		{nil, bson.Null{}},
		{math.NaN(), Dec("NaN")},
		{math.Inf(-1), Dec("-Infinity")},
		{Dec("-1E+6144")},
		{-math.MaxFloat64},
		{int64(math.MinInt64), float64(math.MinInt64), Dec("-9223372036854775808")},
		{int64(math.MinInt64 + 1)},
		{-2.5, Dec("-2.5")},
		{int32(-1), int64(-1), -1.0, Dec("-1"), Dec("-1.000")},
		{-0.1},
		{Dec("-0.1")},
		{-math.SmallestNonzeroFloat64},
		{int32(0), int64(0), 0.0, math.Copysign(0, -1), Dec("0"), Dec("-0"), Dec("0E-6176")},
		{Dec("1E-6176")},
		{math.SmallestNonzeroFloat64},
		{Dec("0.1")},
		{0.1},
		{Dec("0.3")},
		{0.30000000000000004},
		{int32(1), int64(1), 1.0, Dec("1"), Dec("1.0"), Dec("0.01E2")},
		{Dec("1.000000000000000000000000000000001")},
		{1.0000000000000002},
		{int32(math.MaxInt32), int64(math.MaxInt32), float64(math.MaxInt32)},
		{float64(1 << 53), int64(1 << 53)},
		{int64(1<<53 + 1), Dec("9007199254740993")},
		{float64(1<<53 + 2), int64(1<<53 + 2)},
		{float64(1 << 62), int64(1 << 62)},
		{int64(1<<62 + 1)},
		{int64(math.MaxInt64 - 1)},
		{int64(math.MaxInt64), Dec("9223372036854775807")},
		{float64(1 << 63), Dec("9223372036854775808")},
		{Dec("9223372036854775809")},
		{math.MaxFloat64},
		{Dec("1E+6144")},
		{math.Inf(1), Dec("Infinity")},
		{"", bson.Symbol("")},
		{"\x00"},
		{"\x00\x00"},
		{"\x00a"},
		{"A"},
		{"a", bson.Symbol("a")},
		{"a\x00"},
		{"ab"},
		{"b"},
		{"\xff"},
		{bson.D{}},
		{bson.D{{Key: "a", Value: nil}}},
		{bson.D{{Key: "a", Value: int32(1)}}, bson.D{{Key: "a", Value: 1.0}}},
		{bson.D{{Key: "a", Value: int32(1)}, {Key: "b", Value: "x"}}},
		{bson.D{{Key: "b", Value: int32(1)}}},
		{bson.D{{Key: "a", Value: "x"}}},
		{bson.D{{Key: "a", Value: bson.MaxKey{}}}},
		{bson.A{}},
		{bson.A{nil}},
		{bson.A{int32(1)}, bson.A{1.0}, []any{int64(1)}},
		{bson.A{int32(1), int32(2)}},
		{bson.A{int32(2)}},
		{bson.A{"a"}},
		{bson.A{bson.A{}}},
		{bson.Binary{Subtype: 0x80, Data: nil}},
		{bson.Binary{Subtype: 0, Data: []byte{9}}},
		{bson.Binary{Subtype: 4, Data: []byte{1}}},
		{bson.Binary{Subtype: 0, Data: []byte{0, 0}}},
		{oid(0)},
		{oid(1)},
		{bson.ObjectID{1}},
		{false},
		{true},
		{bson.DateTime(math.MinInt64)},
		{bson.DateTime(-1)},
		{bson.DateTime(0)},
		{bson.DateTime(math.MaxInt64)},
		{bson.Timestamp{T: 0, I: 0}},
		{bson.Timestamp{T: 0, I: math.MaxUint32}},
		{bson.Timestamp{T: 1, I: 0}},
		{bson.Timestamp{T: math.MaxUint32, I: 1}},
		{bson.Regex{Pattern: "", Options: ""}},
		{bson.Regex{Pattern: "a", Options: ""}},
		{bson.Regex{Pattern: "a", Options: "i"}},
		{bson.Regex{Pattern: "b", Options: ""}},
		{bson.DBPointer{DB: "z", Pointer: oid(9)}},
		{bson.DBPointer{DB: "ab", Pointer: oid(0)}},
		{bson.DBPointer{DB: "ab", Pointer: oid(1)}},
		{bson.JavaScript("")},
		{bson.JavaScript("f")},
		{bson.CodeWithScope{Code: "f", Scope: bson.D{}}},
		{bson.CodeWithScope{Code: "f", Scope: bson.D{{Key: "x", Value: int32(1)}}}},
		{bson.CodeWithScope{Code: "g", Scope: bson.D{}}},
		{bson.MaxKey{}},
	}
}

// Random returns a random BSON value; depth bounds nesting. Numbers are
// drawn to collide often across types (small integers, powers of two,
// values near 2^53 and 2^63, decimals with equal double neighbours).
func Random(r *rand.Rand, depth int) any {
	switch k := r.Intn(20); {
	case k < 8:
		return RandomNumber(r)
	case k < 11:
		return randString(r)
	case k < 13 && depth > 0:
		return RandomDoc(r, depth-1)
	case k < 15 && depth > 0:
		return randArray(r, depth-1)
	default:
		return randScalar(r)
	}
}

// RandomDoc returns a random document of up to 4 fields.
func RandomDoc(r *rand.Rand, depth int) bson.D {
	d := bson.D{}
	for i := r.Intn(4); i > 0; i-- {
		d = append(d, bson.E{Key: randKey(r), Value: Random(r, depth)})
	}
	return d
}

func randArray(r *rand.Rand, depth int) bson.A {
	a := bson.A{}
	for i := r.Intn(4); i > 0; i-- {
		a = append(a, Random(r, depth))
	}
	return a
}

var alphabet = []string{"", "a", "b", "\x00", "\xff", "ab", "a\x00"}

func randString(r *rand.Rand) string {
	s := ""
	for i := r.Intn(3); i > 0; i-- {
		s += alphabet[r.Intn(len(alphabet))]
	}
	return s
}

// randKey returns a random string without NUL bytes (BSON keys, regexes).
func randKey(r *rand.Rand) string {
	keys := []string{"", "a", "b", "ab", "\xff", "a.b", "0"}
	return keys[r.Intn(len(keys))]
}

func randScalar(r *rand.Rand) any {
	vals := []any{
		nil, bson.MinKey{}, bson.MaxKey{}, bson.Undefined{}, r.Intn(2) == 0,
		bson.Symbol(randString(r)), bson.JavaScript(randString(r)),
		oid(byte(r.Intn(3))), bson.DateTime(r.Int63n(5) - 2),
		bson.Timestamp{T: uint32(r.Intn(3)), I: uint32(r.Intn(3))},
		bson.Binary{Subtype: []byte{0, 4, 0x80}[r.Intn(3)], Data: []byte(randString(r))},
		bson.Regex{Pattern: randKey(r), Options: []string{"", "i", "ms", "imsx"}[r.Intn(4)]},
		bson.DBPointer{DB: randString(r), Pointer: oid(byte(r.Intn(2)))},
		bson.CodeWithScope{Code: bson.JavaScript(randString(r)), Scope: bson.D{}},
	}
	return vals[r.Intn(len(vals))]
}
