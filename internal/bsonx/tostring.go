package bsonx

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// ToString renders a value as MongoDB's BSONObj/BSONElement toString does
// in error messages: { a: 1, b: "x", c: [ 1.5, MinKey ] }.
func ToString(v any) string {
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
	case []any:
		writeArray(b, x)
	case string:
		b.WriteString(strconv.Quote(x))
	case nil, bson.Null:
		b.WriteString("null")
	case float64:
		b.WriteString(formatDouble(x))
	case bson.MinKey:
		b.WriteString("MinKey")
	case bson.MaxKey:
		b.WriteString("MaxKey")
	case bson.ObjectID:
		fmt.Fprintf(b, "ObjectId('%s')", x.Hex())
	case bson.DateTime:
		fmt.Fprintf(b, "new Date(%d)", int64(x))
	case bson.Timestamp:
		fmt.Fprintf(b, "Timestamp(%d, %d)", x.T, x.I)
	case bson.Decimal128:
		fmt.Fprintf(b, "NumberDecimal(%q)", x.String())
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

func writeArray[A ~[]any](b *strings.Builder, a A) {
	if len(a) == 0 {
		b.WriteString("[]")
		return
	}
	b.WriteString("[ ")
	for i, v := range a {
		if i > 0 {
			b.WriteString(", ")
		}
		writeValue(b, v)
	}
	b.WriteString(" ]")
}

// formatDouble writes an integral double with one decimal (1.0), others
// in the shortest form.
func formatDouble(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatFloat(f, 'f', 1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
