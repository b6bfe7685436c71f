package update

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

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
func fmtValue(v any) string {
	var b strings.Builder
	writeValue(&b, v)
	return b.String()
}

func writeValue(b *strings.Builder, v any) {
	switch x := v.(type) {
	case bson.D:
		writeDoc(b, x)
	case bson.A:
		writeArray(b, x)
	case string:
		b.WriteString(strconv.Quote(x))
	case nil:
		b.WriteString("null")
	case float64:
		b.WriteString(fmtDouble(x))
	case bson.ObjectID:
		fmt.Fprintf(b, "ObjectId('%s')", x.Hex())
	case bson.DateTime:
		fmt.Fprintf(b, "new Date(%d)", int64(x))
	case bson.Timestamp:
		fmt.Fprintf(b, "Timestamp(%d, %d)", x.T, x.I)
	default:
		fmt.Fprint(b, x)
	}
}

func writeDoc(b *strings.Builder, d bson.D) {
	if len(d) == 0 {
		b.WriteString("{}")
		return
	}
	b.WriteString("{ ")
	for i, e := range d {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.Key + ": ")
		writeValue(b, e.Value)
	}
	b.WriteString(" }")
}

func writeArray(b *strings.Builder, a bson.A) {
	if len(a) == 0 {
		b.WriteString("[]")
		return
	}
	b.WriteString("[ ")
	for i, e := range a {
		if i > 0 {
			b.WriteString(", ")
		}
		writeValue(b, e)
	}
	b.WriteString(" ]")
}

func fmtDouble(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatFloat(f, 'f', 1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

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
