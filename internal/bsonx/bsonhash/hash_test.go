package bsonhash

import (
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// MongoDB's test vectors (src/mongo/db/hasher_test.cpp, "determined
// experimentally", seed 0) and jstests/core/hash.js (_hashBSONElement with
// seed 1).
func TestHashVectors(t *testing.T) {
	oid := func(s string) bson.ObjectID { o, _ := bson.ObjectIDFromHex(s); return o }
	bin := []byte{0, 1, 2, 3, 4, 6}
	uuid := []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	for _, tc := range []struct {
		name string
		v    any
		want int64
	}{
		{"int32 42", int32(42), -944302157085130861},
		{"double 42.123", 42.123, -944302157085130861},
		{"int64 42", int64(42), -944302157085130861},
		{"int32 0", int32(0), 4854801880128277513},
		{"double 0.456", 0.456, 4854801880128277513},
		{"int64 0", int64(0), 4854801880128277513},
		{"NaN", math.NaN(), 4854801880128277513},
		{"int32 1", int32(1), 5902408780260971510},
		{"double 1.987", 1.987, 5902408780260971510},
		{"int64 1", int64(1), 5902408780260971510},
		{"int32 -1", int32(-1), 1140205862565771219},
		{"double -1.789", -1.789, 1140205862565771219},
		{"int64 -1", int64(-1), 1140205862565771219},
		{"int32 min", int32(math.MinInt32), 6165898260261354870},
		{"double int32 min", float64(math.MinInt32), 6165898260261354870},
		{"int32 max", int32(math.MaxInt32), 1143184177162245883},
		{"double int32 max", float64(math.MaxInt32), 1143184177162245883},
		{"double max", math.MaxFloat64, 921523596458303250},
		{"int64 max", int64(math.MaxInt64), 921523596458303250},
		{"double lowest", -math.MaxFloat64, 4532067210535695462},
		{"int64 min", int64(math.MinInt64), 4532067210535695462},
		{"MinKey", bson.MinKey{}, 7961148599568647290},
		{"MaxKey", bson.MaxKey{}, 5504842513779440750},
		{"undefined", bson.Undefined{}, 40158834000849533},
		{"null", nil, 2338878944348059895},
		{"string abc", "abc", 8478485326885698097},
		{"symbol abc", bson.Symbol("abc"), 8478485326885698097},
		{"string empty", "", 2049396243249673340},
		{"symbol empty", bson.Symbol(""), 2049396243249673340},
		{"object", bson.D{{Key: "a", Value: "abc"}, {Key: "b", Value: int64(123)}}, 4771603801758380216},
		{"empty object", bson.D{}, 7980500913326740417},
		{"array", bson.A{"bar", "baz", "qux"}, -2938911267422831539},
		{"empty array", bson.A{}, 8849948234993459283},
		{"binData 0", bson.Binary{Subtype: 0, Data: bin}, 7252465090394235301},
		{"binData 128", bson.Binary{Subtype: 0x80, Data: bin}, 5736670452907618262},
		{"uuid", bson.Binary{Subtype: 4, Data: uuid}, 6084661258071355978},
		{"oid", oid("010203040506070809101112"), -5588663249627035708},
		{"oid zero", oid("000000000000000000000000"), -4293118519463489418},
		{"true", true, 6405873908747105701},
		{"false", false, 6289544573401934092},
		{"date", bson.DateTime(0x5566778811223344), 4476222765095560467},
		{"date 0", bson.DateTime(0), -1178696894582842035},
		{"regex", bson.Regex{Pattern: "mongodb"}, -7275792090268217043},
		{"regex i", bson.Regex{Pattern: ".*", Options: "i"}, 7095855029187981886},
		{"dbpointer c", bson.DBPointer{DB: "c", Pointer: oid("010203040506070809101112")}, 940175826736461384},
		{"dbpointer db.c", bson.DBPointer{DB: "db.c", Pointer: oid("010203040506070809101112")}, 2426768198104018194},
		{"code", bson.JavaScript("func f() { return 1; }"), 6861638109178014270},
		{"code w scope", bson.CodeWithScope{Code: "func f() { return 1; }", Scope: bson.D{{Key: "c", Value: true}}}, 501342939894575968},
	} {
		got, err := Hash(tc.v)
		if err != nil || got != tc.want {
			t.Errorf("Hash(%s) = %d, %v; want %d", tc.name, got, err, tc.want)
		}
	}
}

// Seed 1 vectors from jstests/core/hash.js: the double edge cases of
// safeNumberLongForHash (SERVER-37183).
func TestHashSeedOneEdgeCases(t *testing.T) {
	const (
		hashOfMax    = 1136124329541638701
		hashOfLowest = 5744114172487291558
		hashOfZero   = 5574369198691456941
	)
	for _, tc := range []struct {
		name string
		v    any
		want int64
	}{
		{"string", "hashthis", 6271151123721111923},
		{"2^63", math.Pow(2, 63), hashOfLowest},
		{"2^63+2^11", math.Pow(2, 63) + math.Pow(2, 11), hashOfMax},
		{"2^500", math.Pow(2, 500), hashOfMax},
		{"+Inf", math.Inf(1), hashOfMax},
		{"2^63-2^10", math.Pow(2, 63) - math.Pow(2, 10), -3954856262017896439},
		{"-2^63", -math.Pow(2, 63), hashOfLowest},
		{"-(2^63-2^10)", -(math.Pow(2, 63) - math.Pow(2, 10)), -1762411739488908479},
		{"-(2^63+2^11)", -(math.Pow(2, 63) + math.Pow(2, 11)), hashOfLowest},
		{"-Inf", math.Inf(-1), hashOfLowest},
		{"0", 0.0, hashOfZero},
		{"NumberLong 0", int64(0), hashOfZero},
		{"NaN", math.NaN(), hashOfZero},
		{"-NaN", -math.NaN(), hashOfZero},
		{"object", bson.D{{Key: "a", Value: 1.0}, {Key: "b", Value: 2.0}}, -7076810813311352857},
		{"object edge", bson.D{{Key: "a", Value: math.Pow(2, 63)}, {Key: "b", Value: math.NaN()}}, 1223292051903137684},
	} {
		got, err := HashSeed(tc.v, 1)
		if err != nil || got != tc.want {
			t.Errorf("HashSeed(%s, 1) = %d, %v; want %d", tc.name, got, err, tc.want)
		}
	}
}

// Since MongoDB 2.6 a timestamp's canonical type (47) differs from a
// date's (45), so they no longer hash alike; the current hasher_test.cpp
// pins these two values (the 2013 file above predates the change).
func TestHashTimestamp(t *testing.T) {
	for _, tc := range []struct {
		ts   bson.Timestamp
		want int64
	}{
		{bson.Timestamp{T: 0x55667788, I: 0x11223344}, 4873046866288452390},
		{bson.Timestamp{}, -7867208682377458672},
	} {
		if got, err := Hash(tc.ts); err != nil || got != tc.want {
			t.Errorf("Hash(%v) = %d, %v; want %d", tc.ts, got, err, tc.want)
		}
	}
}

// Numbers hash as their int64: every numeric type, truncation, and
// decimals (rounded half to even).
func TestHashNumbersAgree(t *testing.T) {
	d := func(s string) bson.Decimal128 { x, _ := bson.ParseDecimal128(s); return x }
	for _, tc := range []struct {
		v    any
		same any
	}{
		{int32(7), int64(7)},
		{7.0, int64(7)},
		{7.99, int64(7)},
		{-7.99, int64(-7)},
		{7, int64(7)},
		{float32(7.5), int64(7)},
		{d("7"), int64(7)},
		{d("7.5"), int64(8)},
		{d("6.5"), int64(6)},
		{d("-6.5"), int64(-6)},
		{d("-6.51"), int64(-7)},
		{d("1E+30"), int64(math.MaxInt64)},
		{d("-Infinity"), int64(math.MinInt64)},
		{d("NaN"), int64(0)},
		{d("1E-50"), int64(0)},
		{bson.D{{Key: "x", Value: 3.1}}, bson.D{{Key: "x", Value: int32(3)}}},
	} {
		a, err1 := Hash(tc.v)
		b, err2 := Hash(tc.same)
		if err1 != nil || err2 != nil || a != b {
			t.Errorf("Hash(%v) = %d, Hash(%v) = %d (%v, %v); want equal", tc.v, a, tc.same, b, err1, err2)
		}
	}
}

func TestHashDiffers(t *testing.T) {
	for _, tc := range [][2]any{
		{int32(3), int32(4)},
		{int32(3), "3"},
		{"3", bson.Regex{Pattern: "3"}},
		{bson.D{{Key: "0", Value: int32(0)}, {Key: "1", Value: int32(1)}}, bson.A{int32(0), int32(1)}},
		{bson.MinKey{}, bson.MaxKey{}},
		{bson.DateTime(0), bson.Timestamp{}},
	} {
		a, _ := Hash(tc[0])
		b, _ := Hash(tc[1])
		if a == b {
			t.Errorf("Hash(%v) == Hash(%v) = %d", tc[0], tc[1], a)
		}
	}
}

func TestHashRejectsNonBSON(t *testing.T) {
	if _, err := Hash(struct{}{}); err == nil {
		t.Error("Hash(struct{}{}) succeeded")
	}
	if _, err := Hash(bson.D{{Key: "a", Value: bson.M{}}}); err == nil {
		t.Error("Hash of a bson.M inside a document succeeded")
	}
}
