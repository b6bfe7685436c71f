package agg

import (
	"fmt"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/bsonx"
)

// groupKey encodes v so that two values get the same key exactly when
// MongoDB's value comparison finds them equal (1, 1.0 and NumberLong(1)
// share a key; field names and order matter in documents).
func groupKey(v any) string {
	var b strings.Builder
	writeKey(&b, v)
	return b.String()
}

func writeKey(b *strings.Builder, v any) {
	switch t := v.(type) {
	case nil, expr.MissingValue, bson.Undefined:
		b.WriteString("N")
	case string:
		writeStr(b, 's', t)
	case bson.Symbol:
		writeStr(b, 's', string(t))
	case bson.D:
		b.WriteByte('{')
		for _, e := range t {
			writeStr(b, 'k', e.Key)
			writeKey(b, e.Value)
		}
		b.WriteByte('}')
	case bson.A:
		b.WriteByte('[')
		for _, e := range t {
			writeKey(b, e)
		}
		b.WriteByte(']')
	default:
		if n, ok := bsonx.SplitNumber(v); ok && bsonx.IsNumber(v) {
			fmt.Fprintf(b, "n%v;", n)
			return
		}
		fmt.Fprintf(b, "%d:%#v;", bsonx.TypeByte(v), v)
	}
}

func writeStr(b *strings.Builder, tag byte, s string) {
	b.WriteByte(tag)
	b.WriteString(strconv.Itoa(len(s)))
	b.WriteByte(':')
	b.WriteString(s)
}

func numberAsFloat(v any) (float64, bool) {
	if !bsonx.IsNumber(v) {
		return 0, false
	}
	return bsonx.AsFloat64(v)
}
