package update

import (
	"fmt"
	"math"
	"reflect"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// typeName is the BSON type name MongoDB uses in error messages.
func typeName(v any) string {
	if n := bsonx.TypeAlias(v); n != "" {
		return n
	}
	return fmt.Sprintf("%T", v)
}

// fmtElem renders "name: value" like MongoDB's BSONElement::toString.
func fmtElem(name string, v any) string {
	return name + ": " + fmtValue(v)
}

// fmtValue renders a value in MongoDB's shell-like toString format.
func fmtValue(v any) string { return bsonx.ToString(v) }

// identical reports whether a and b are the same BSON value byte for byte:
// same types, same field order, doubles compared by bits.
func identical(a, b any) bool {
	switch x := a.(type) {
	case bson.D:
		y, ok := b.(bson.D)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i].Key != y[i].Key || !identical(x[i].Value, y[i].Value) {
				return false
			}
		}
		return true
	case bson.A:
		y, ok := b.(bson.A)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !identical(x[i], y[i]) {
				return false
			}
		}
		return true
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	}
	return reflect.TypeOf(a) == reflect.TypeOf(b) && reflect.DeepEqual(a, b)
}
