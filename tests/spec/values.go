package spec

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// normalize turns driver-side values into the shapes the matcher knows:
// documents as bson.D, arrays as bson.A, Go ints as int64.
func normalize(v any) any {
	switch x := v.(type) {
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
	case []any:
		return normalize(bson.A(x))
	case []bson.D:
		out := make(bson.A, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case []string:
		out := make(bson.A, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out
	case bson.Raw:
		var d bson.D
		if err := bson.Unmarshal(x, &d); err != nil {
			return fmt.Sprintf("<bad BSON: %v>", err)
		}
		return normalize(d)
	case bson.RawValue:
		var out any
		if err := x.Unmarshal(&out); err != nil {
			return fmt.Sprintf("<bad BSON value: %v>", err)
		}
		return normalize(out)
	case bson.M:
		return normalize(viaBSON(x))
	case int:
		return int64(x)
	}
	return v
}

// viaBSON round-trips any marshalable document through BSON into a bson.D.
func viaBSON(v any) bson.D {
	b, err := bson.Marshal(v)
	if err != nil {
		return bson.D{{Key: "$marshalError", Value: err.Error()}}
	}
	var d bson.D
	if err := bson.Unmarshal(b, &d); err != nil {
		return bson.D{{Key: "$unmarshalError", Value: err.Error()}}
	}
	return d
}

// getDoc, getString, getBool, getA read typed fields, returning zero values
// when absent or of another type.
func getDoc(d bson.D, key string) bson.D {
	v, _ := lookup(d, key)
	x, _ := v.(bson.D)
	return x
}

func getString(d bson.D, key string) string {
	v, _ := lookup(d, key)
	x, _ := v.(string)
	return x
}

func getBool(d bson.D, key string) (bool, bool) {
	v, ok := lookup(d, key)
	x, isBool := v.(bool)
	return x, ok && isBool
}

func getA(d bson.D, key string) bson.A {
	v, _ := lookup(d, key)
	x, _ := v.(bson.A)
	return x
}
