package bsonx_test

import (
	"math"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/bsonx/bsonxtest"
)

func TestNumberValueCanonicalType(t *testing.T) {
	dec := bsonxtest.Dec
	tests := []struct {
		in   any
		want any
	}{
		{int32(7), int64(7)},
		{1.0, int64(1)},
		{dec("1.00"), int64(1)},
		{math.Copysign(0, -1), int64(0)},
		{int64(math.MinInt64), int64(math.MinInt64)},
		{float64(1 << 63), float64(1 << 63)},
		{2.5, 2.5},
		{dec("-2.5"), -2.5},
		{math.SmallestNonzeroFloat64, math.SmallestNonzeroFloat64},
		{dec("0.1"), dec("0.1")},
		{dec("18446744073709551617"), dec("18446744073709551617")},
		{dec("1E+400"), dec("1E+400")},
		{math.Inf(-1), math.Inf(-1)},
	}
	for _, tt := range tests {
		n, ok := bsonx.SplitNumber(tt.in)
		if !ok {
			t.Fatalf("SplitNumber(%s) not a number", show(tt.in))
		}
		got, err := bsonx.NumberValue(n)
		if err != nil {
			t.Fatalf("NumberValue(%s): %v", show(tt.in), err)
		}
		if reflect.TypeOf(got) != reflect.TypeOf(tt.want) || bsonx.Compare(got, tt.want) != 0 {
			t.Errorf("NumberValue(%s) = %s, want %s", show(tt.in), show(got), show(tt.want))
		}
	}
}

// TestNumberValueRoundTrip: the rebuilt value equals the original and
// splits to the identical form.
func TestNumberValueRoundTrip(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	for i := 0; i < 3000; i++ {
		v := bsonxtest.RandomNumber(r)
		n, _ := bsonx.SplitNumber(v)
		got, err := bsonx.NumberValue(n)
		if err != nil {
			t.Fatalf("seed %d: NumberValue(%s): %v", seed, show(v), err)
		}
		n2, _ := bsonx.SplitNumber(got)
		if n != n2 || !bsonx.Equal(v, got) {
			t.Fatalf("seed %d: %s came back as %s (%+v vs %+v)", seed, show(v), show(got), n, n2)
		}
	}
}

func TestAsInt64(t *testing.T) {
	dec := bsonxtest.Dec
	tests := []struct {
		in   any
		want int64
		ok   bool
	}{
		{int32(-3), -3, true},
		{int64(math.MaxInt64), math.MaxInt64, true},
		{4.0, 4, true},
		{4.5, 0, false},
		{float64(1 << 63), 0, false},
		{-float64(1 << 63), math.MinInt64, true},
		{math.NaN(), 0, false},
		{dec("12.000"), 12, true},
		{dec("1.2E+1"), 12, true},
		{dec("1.5"), 0, false},
		{dec("9223372036854775808"), 0, false},
		{dec("1E+6000"), 0, false},
		{dec("Infinity"), 0, false},
		{"1", 0, false},
		{7, 7, true},
	}
	for _, tt := range tests {
		got, ok := bsonx.AsInt64(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("AsInt64(%s) = %d, %v; want %d, %v", show(tt.in), got, ok, tt.want, tt.ok)
		}
	}
}

func TestAsFloat64(t *testing.T) {
	dec := bsonxtest.Dec
	tests := []struct {
		in   any
		want float64
		ok   bool
	}{
		{int32(2), 2, true},
		{int64(1<<53 + 1), 1 << 53, true},
		{dec("0.1"), 0.1, true},
		{dec("1E+400"), math.Inf(1), true},
		{dec("-Infinity"), math.Inf(-1), true},
		{float32(0.25), 0.25, true},
		{true, 0, false},
	}
	for _, tt := range tests {
		got, ok := bsonx.AsFloat64(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("AsFloat64(%s) = %v, %v; want %v, %v", show(tt.in), got, ok, tt.want, tt.ok)
		}
	}
	if f, ok := bsonx.AsFloat64(dec("NaN")); !ok || !math.IsNaN(f) {
		t.Errorf("AsFloat64(dec NaN) = %v, %v", f, ok)
	}
}

func TestTypes(t *testing.T) {
	tests := []struct {
		v     any
		code  byte
		alias string
		canon int
	}{
		{1.5, 0x01, "double", bsonx.CanonNumber},
		{"s", 0x02, "string", bsonx.CanonString},
		{bson.D{}, 0x03, "object", bsonx.CanonObject},
		{bson.A{}, 0x04, "array", bsonx.CanonArray},
		{bson.Binary{}, 0x05, "binData", bsonx.CanonBinData},
		{bson.Undefined{}, 0x06, "undefined", bsonx.CanonUndefined},
		{bson.ObjectID{}, 0x07, "objectId", bsonx.CanonObjectID},
		{true, 0x08, "bool", bsonx.CanonBool},
		{bson.DateTime(0), 0x09, "date", bsonx.CanonDate},
		{nil, 0x0A, "null", bsonx.CanonNull},
		{bson.Regex{}, 0x0B, "regex", bsonx.CanonRegex},
		{bson.DBPointer{}, 0x0C, "dbPointer", bsonx.CanonDBPointer},
		{bson.JavaScript(""), 0x0D, "javascript", bsonx.CanonJavaScript},
		{bson.Symbol(""), 0x0E, "symbol", bsonx.CanonString},
		{bson.CodeWithScope{}, 0x0F, "javascriptWithScope", bsonx.CanonCodeWithScope},
		{int32(1), 0x10, "int", bsonx.CanonNumber},
		{bson.Timestamp{}, 0x11, "timestamp", bsonx.CanonTimestamp},
		{int64(1), 0x12, "long", bsonx.CanonNumber},
		{bsonxtest.Dec("1"), 0x13, "decimal", bsonx.CanonNumber},
		{bson.MinKey{}, 0xFF, "minKey", bsonx.CanonMinKey},
		{bson.MaxKey{}, 0x7F, "maxKey", bsonx.CanonMaxKey},
		{1 << 40, 0x12, "long", bsonx.CanonNumber},
	}
	for _, tt := range tests {
		if got := bsonx.TypeByte(tt.v); got != tt.code {
			t.Errorf("TypeByte(%s) = %#x, want %#x", show(tt.v), got, tt.code)
		}
		if got := bsonx.TypeAlias(tt.v); got != tt.alias {
			t.Errorf("TypeAlias(%s) = %q, want %q", show(tt.v), got, tt.alias)
		}
		if got := bsonx.CanonicalType(tt.v); got != tt.canon {
			t.Errorf("CanonicalType(%s) = %d, want %d", show(tt.v), got, tt.canon)
		}
		if code, ok := bsonx.TypeFromAlias(tt.alias); !ok || code != tt.code {
			t.Errorf("TypeFromAlias(%q) = %#x, %v", tt.alias, code, ok)
		}
	}
	if _, ok := bsonx.TypeFromAlias("number"); ok {
		t.Error(`TypeFromAlias("number") should be left to callers`)
	}
	if !bsonx.IsNumber(bsonxtest.Dec("1")) || bsonx.IsNumber("1") {
		t.Error("IsNumber misclassifies")
	}
}
