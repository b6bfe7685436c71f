package js

import (
	"strconv"
	"testing"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// FuzzRoundTrip: any BSON document converts to JavaScript and back to the
// same document (up to normalize), without panicking, unless it holds
// what JavaScript cannot keep: duplicate or array-index-like field names
// (JavaScript orders those first) or dates outside JavaScript's range.
func FuzzRoundTrip(f *testing.F) {
	for _, d := range []bson.D{
		{{Key: "a", Value: int32(1)}, {Key: "b", Value: bson.A{"x", 2.5, int64(3)}}},
		{{Key: "__proto__", Value: bson.D{{Key: "p", Value: true}}}, {Key: "d", Value: bson.DateTime(0)}},
		{{Key: "r", Value: bson.Regex{Pattern: "^a", Options: "i"}}, {Key: "o", Value: bson.NewObjectID()}},
	} {
		b, _ := bson.Marshal(d)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var d bson.D
		if bson.Unmarshal(data, &d) != nil || !representable(d) {
			return
		}
		got, err := roundTrip(t, d)
		if err != nil {
			return // too deep, or a value conversion refuses: an error, not a panic
		}
		if want := normalize(d); !equalValues(got, want) {
			t.Fatalf("round trip of %#v = %#v", d, got)
		}
	})
}

// representable reports whether v avoids what the round trip cannot keep.
func representable(v any) bool {
	switch x := v.(type) {
	case bson.D:
		seen := map[string]bool{}
		for _, e := range x {
			if _, err := strconv.ParseUint(e.Key, 10, 32); err == nil || !validUTF8(e.Key) || seen[e.Key] || !representable(e.Value) {
				return false
			}
			seen[e.Key] = true
		}
	case bson.A:
		for _, e := range x {
			if !representable(e) {
				return false
			}
		}
	case bson.DateTime:
		return x >= -8_640_000_000_000_000 && x <= 8_640_000_000_000_000
	case bson.CodeWithScope:
		return representable(x.Scope)
	case bson.Regex:
		return validUTF8(x.Pattern) && validUTF8(x.Options)
	case string:
		return validUTF8(x)
	case float64:
		return x == x // NaN payloads are not kept bit for bit
	}
	return true
}

func validUTF8(s string) bool { return utf8.ValidString(s) }
