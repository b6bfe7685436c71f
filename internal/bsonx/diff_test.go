package bsonx_test

import (
	"bytes"
	"math"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/bsonx/bsonxtest"
)

// Differential tests: Decode against the former decoder (validator plus
// bson.Unmarshal, kept as bsonx.DecodeLegacy), Encode against bson.Marshal.

// same is reflect.DeepEqual except that a float64 equals another with the
// same bits (so NaN equals NaN). Like DeepEqual it tells nil slices from
// empty ones, and types apart.
func same(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case bson.D:
		y, ok := b.(bson.D)
		if !ok || (x == nil) != (y == nil) || len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i].Key != y[i].Key || !same(x[i].Value, y[i].Value) {
				return false
			}
		}
		return true
	case bson.A:
		y, ok := b.(bson.A)
		if !ok || (x == nil) != (y == nil) || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !same(x[i], y[i]) {
				return false
			}
		}
		return true
	case bson.CodeWithScope:
		y, ok := b.(bson.CodeWithScope)
		return ok && x.Code == y.Code && same(x.Scope, y.Scope)
	}
	return reflect.DeepEqual(a, b)
}

// checkDecode decodes raw both ways and fails unless both reject it with
// the same error (as Validate does) or both accept it with the same values. It then
// overwrites raw to prove the result does not alias it.
func checkDecode(t *testing.T, raw []byte, maxDepth int) {
	t.Helper()
	want, werr := bsonx.DecodeLegacy(bytes.Clone(raw), maxDepth)
	got, err := bsonx.DecodeMaxDepth(raw, maxDepth)
	if (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
		t.Fatalf("input %x depth %d:\n got error %v\nwant error %v", raw, maxDepth, err, werr)
	}
	if verr := bsonx.Validate(raw, maxDepth); (verr == nil) != (err == nil) || (err != nil && err.Error() != verr.Error()) {
		t.Fatalf("input %x depth %d: Validate says %v, Decode %v", raw, maxDepth, verr, err)
	}
	for i := range raw {
		raw[i] = 0xAA
	}
	if err == nil && !same(got, want) {
		t.Fatalf("input decoded differently:\n got %#v\nwant %#v", got, want)
	}
}

// checkEncode fails unless Encode and AppendDocument write what
// bson.Marshal writes, or all fail.
func checkEncode(t *testing.T, doc bson.D) {
	t.Helper()
	want, werr := bson.Marshal(append(bson.D{}, doc...)) // nil: {} as before

	got, err := bsonx.Encode(doc)
	if (err == nil) != (werr == nil) {
		t.Fatalf("%#v:\n got error %v\nwant error %v", doc, err, werr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%#v:\n got %x\nwant %x", doc, got, want)
	}
	prefix := []byte("xyz")
	app, err := bsonx.AppendDocument(prefix, doc)
	if err != nil {
		app = append(app, want...) // on error AppendDocument keeps dst as it was
	}
	if !bytes.Equal(app, append([]byte("xyz"), want...)) {
		t.Fatalf("AppendDocument wrote %x", app)
	}
}

func TestDecodeDifferentialRandom(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for i := 0; i < 3000; i++ {
		raw, err := bson.Marshal(bsonxtest.RandomDoc(r, 4))
		if err != nil {
			t.Fatal(err)
		}
		checkDecode(t, raw, bsonx.MaxWireDepth)
		checkDecode(t, mutate(r, raw), 1+r.Intn(4))
	}
}

// mutate flips, drops or inserts a few bytes.
func mutate(r *rand.Rand, raw []byte) []byte {
	b := bytes.Clone(raw)
	for n := 1 + r.Intn(3); n > 0 && len(b) > 0; n-- {
		i := r.Intn(len(b))
		switch r.Intn(3) {
		case 0:
			b[i] = byte(r.Intn(256))
		case 1:
			b = append(b[:i], b[i+1:]...)
		default:
			b = append(b[:i], append([]byte{byte(r.Intn(20))}, b[i:]...)...)
		}
	}
	return b
}

func TestDecodeDifferentialEdges(t *testing.T) {
	for name, raw := range map[string][]byte{
		"all types":         mustMarshal(t, allTypes()),
		"binary subtype 2":  mustMarshal(t, bson.D{{Key: "b", Value: bson.Binary{Subtype: 2, Data: []byte{1, 2}}}}),
		"binary 2, 4 bytes": append(append(le32(17), 5, 'b', 0), append(le32(4), 2, 0, 0, 0, 0, 0)...),
		"empty binary":      mustMarshal(t, bson.D{{Key: "b", Value: bson.Binary{}}}),
		"empty scope":       mustMarshal(t, bson.D{{Key: "c", Value: bson.CodeWithScope{Code: "x", Scope: bson.D{}}}}),
		"array keys":        append(append(le32(20), 4, 'a', 0), append(le32(12), 0x10, 'z', 'z', 0, 7, 0, 0, 0, 0, 0)...),
		"regex options":     append(append(le32(12), 0x0B, 'r', 0), 'a', 0, 'x', 'i', 0, 0),
		"scope length":      cat(le32(24), []byte{0x0F, 'c', 0}, le32(16), le32(2), []byte{'x', 0}, le32(5), []byte{0, 0, 0}),
		"scope too deep":    cat(le32(23), []byte{0x0F, 'c', 0}, le32(15), le32(2), []byte{'x', 0}, le32(5), []byte{0, 0}),
		"dbpointer short":   cat(le32(20), []byte{0x0C, 'p', 0}, le32(2), []byte{'x', 0}, make([]byte, 7)),
		"binary 2 short":    cat(le32(16), []byte{5, 'b', 0}, le32(3), []byte{2, 0, 0, 0, 0}),
		"binary 2 inner":    cat(le32(18), []byte{5, 'b', 0}, le32(5), []byte{2, 2, 0, 0, 0, 9, 0}),
		"bool 2":            cat(le32(9), []byte{8, 'b', 0, 2, 0}),
		"string no nul":     cat(le32(14), []byte{2, 's', 0}, le32(2), []byte{'x', 'y', 0}),
		"string length 0":   cat(le32(12), []byte{2, 's', 0}, le32(0), []byte{0}),
		"key unterminated":  cat(le32(7), []byte{0x0A, 'k', 0}),
		"eoo inside":        cat(le32(8), []byte{0, 'k', 0, 0}),
		"trailing":          cat(le32(5), []byte{0, 0}),
		"inner too long":    cat(le32(13), []byte{3, 'd', 0}, le32(6), []byte{0, 0}),
		"unknown type":      cat(le32(8), []byte{0x14, 'k', 0, 0}),
	} {
		t.Run(name, func(t *testing.T) {
			checkDecode(t, bytes.Clone(raw), bsonx.MaxWireDepth)
			checkDecode(t, raw, 1)
		})
	}
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func mustMarshal(t *testing.T, d bson.D) []byte {
	t.Helper()
	raw, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// goValues are the Go values a caller may build that decoding never
// yields, each encoded here or by the driver fallback.
func goValues() []any {
	type point struct{ X, Y int }
	return []any{
		0, -1, 1 << 31, -1<<31 - 1, math.MaxInt64, math.MinInt32, float32(1.5), float32(math.NaN()),
		int8(-3), int16(300), uint8(7), uint32(1 << 31), uint64(5), []byte{1, 2}, []byte{}, []byte(nil),
		bson.D(nil), bson.A(nil), []any(nil), []any{1, "a"}, bson.Null{},
		time.Unix(-1, 5e5).UTC(), time.Unix(1700000000, 123456789), time.Time{},
		bson.Raw(mustRaw(bson.D{{Key: "r", Value: int32(1)}})),
		bson.RawValue{Type: bson.TypeString, Value: []byte{2, 0, 0, 0, 'x', 0}},
		bson.Regex{Pattern: "a", Options: "xsmi"}, bson.Regex{Pattern: "a", Options: "é\xffa"},
		bson.CodeWithScope{Code: "f", Scope: bson.D{{Key: "x", Value: 1}}},
		bson.CodeWithScope{Code: "f", Scope: bson.Raw(mustRaw(bson.D{}))},
		bson.Binary{Subtype: 2, Data: nil}, bson.Binary{Subtype: 2, Data: []byte{9}},
		point{1, 2}, &point{3, 4}, []string{"a"}, "with\x00nul", bson.Symbol("s"),
	}
}

func mustRaw(d bson.D) []byte {
	raw, err := bson.Marshal(d)
	if err != nil {
		panic(err)
	}
	return raw
}

func TestEncodeDifferential(t *testing.T) {
	checkEncode(t, nil)
	checkEncode(t, allTypes())
	for _, v := range goValues() {
		checkEncode(t, bson.D{{Key: "v", Value: v}})
		checkEncode(t, bson.D{{Key: "a", Value: bson.A{v, bson.D{{Key: "v", Value: v}}}}})
	}
	r := rand.New(rand.NewSource(8))
	for i := 0; i < 3000; i++ {
		checkEncode(t, bsonxtest.RandomDoc(r, 4))
	}
}

func TestEncodeErrors(t *testing.T) {
	for name, doc := range map[string]bson.D{
		"nul key":         {{Key: "a\x00", Value: 1}},
		"nested nul key":  {{Key: "a", Value: bson.D{{Key: "\x00", Value: 1}}}},
		"nul in array":    {{Key: "a", Value: bson.A{bson.D{{Key: "\x00", Value: 1}}}}},
		"regex pattern":   {{Key: "r", Value: bson.Regex{Pattern: "a\x00"}}},
		"regex options":   {{Key: "r", Value: bson.Regex{Pattern: "a", Options: "\x00"}}},
		"nil scope":       {{Key: "c", Value: bson.CodeWithScope{Code: "f"}}},
		"bad raw value":   {{Key: "v", Value: bson.RawValue{}}},
		"unsupported":     {{Key: "c", Value: make(chan int)}},
		"uint64 overflow": {{Key: "u", Value: uint64(math.MaxUint64)}},
	} {
		t.Run(name, func(t *testing.T) { checkEncode(t, doc) })
	}
	if _, err := bsonx.Encode(bson.D{{Key: "m", Value: bson.M{"a": 1}}}); err == nil {
		t.Error("bson.M was accepted")
	}
}
