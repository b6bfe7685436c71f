package js

import (
	"math"
	"reflect"
	"testing"

	"github.com/dop251/goja"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// roundTrip converts v to JavaScript and back in a fresh session.
func roundTrip(t testing.TB, v any) (any, error) {
	s := NewSession(Options{})
	var out any
	_, err := s.run(func(rt *goja.Runtime) (goja.Value, error) {
		j, err := s.cv.toJS(v, 0)
		if err != nil {
			return nil, err
		}
		out, err = s.cv.toBSON(j, 0)
		return j, err
	})
	return out, err
}

// normalize is what the conversion promises to change: int32 becomes a
// double and a symbol a string.
func normalize(v any) any {
	switch x := v.(type) {
	case int32:
		return float64(x)
	case bson.Symbol:
		return string(x)
	case bson.D:
		out := make(bson.D, len(x))
		for i, e := range x {
			out[i] = bson.E{Key: e.Key, Value: normalize(e.Value)}
		}
		return out
	case bson.A:
		out := make(bson.A, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case bson.CodeWithScope:
		if sd, ok := normalize(x.Scope).(bson.D); ok {
			x.Scope = sd
		}
		return x
	}
	return v
}

func equalValues(a, b any) bool {
	if fa, ok := a.(float64); ok {
		if fb, ok := b.(float64); ok && math.IsNaN(fa) && math.IsNaN(fb) {
			return true
		}
	}
	return reflect.DeepEqual(a, b)
}

func TestRoundTrip(t *testing.T) {
	oid := bson.ObjectID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	dec, _ := bson.ParseDecimal128("1.50")
	for _, v := range []any{
		nil, bson.Undefined{}, true, "s", 1.5, math.Inf(-1), int32(7), int64(math.MaxInt64), int64(math.MinInt64),
		dec, oid, bson.DateTime(1700000000123), bson.Timestamp{T: 5, I: 6},
		bson.Binary{Subtype: 4, Data: []byte{1, 2}}, bson.MinKey{}, bson.MaxKey{},
		bson.Regex{Pattern: "a.c", Options: "im"}, bson.Regex{Pattern: "a/c", Options: "x"}, bson.Regex{Pattern: "", Options: ""},
		bson.JavaScript("function() {}"), bson.CodeWithScope{Code: "x", Scope: bson.D{{Key: "i", Value: 1.0}}},
		bson.Symbol("sym"), bson.DBPointer{DB: "db.c", Pointer: oid},
		bson.D{{Key: "a", Value: bson.A{int32(1), bson.D{{Key: "b", Value: "c"}}}}, {Key: "z", Value: bson.A{}}},
	} {
		got, err := roundTrip(t, v)
		if err != nil {
			t.Errorf("%#v: %v", v, err)
			continue
		}
		if want := normalize(v); !equalValues(got, want) {
			t.Errorf("round trip of %#v = %#v, want %#v", v, got, want)
		}
	}
}

func TestTooDeep(t *testing.T) {
	var v any = "x"
	for i := 0; i < MaxDepth+5; i++ {
		v = bson.A{v}
	}
	if _, err := roundTrip(t, v); err == nil {
		t.Errorf("nesting deeper than MaxDepth converted")
	}
}
