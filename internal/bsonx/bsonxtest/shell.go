package bsonxtest

import (
	"encoding/base64"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Shell renders v as mongosh does, keeping numeric types visible (golden
// and case files show int32 1, NumberLong(1) and 1.0 apart).
func Shell(v any) string {
	var b strings.Builder
	writeShell(&b, v)
	return b.String()
}

func writeShell(b *strings.Builder, v any) {
	switch x := v.(type) {
	case bson.D:
		b.WriteString("{")
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(shellKey(e.Key) + ": ")
			writeShell(b, e.Value)
		}
		b.WriteString("}")
	case bson.A:
		b.WriteString("[")
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeShell(b, e)
		}
		b.WriteString("]")
	default:
		b.WriteString(shellScalar(v))
	}
}

var plainKey = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

func shellKey(k string) string {
	if plainKey.MatchString(k) {
		return k
	}
	return strconv.Quote(k)
}

func shellScalar(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case int32:
		return strconv.Itoa(int(x))
	case int64:
		return fmt.Sprintf("NumberLong(%d)", x)
	case float64:
		return shellDouble(x)
	case bson.Decimal128:
		return fmt.Sprintf("NumberDecimal(%q)", x.String())
	case string:
		return strconv.Quote(x)
	case bool:
		return strconv.FormatBool(x)
	case bson.DateTime:
		return fmt.Sprintf("ISODate(%q)", x.Time().UTC().Format("2006-01-02T15:04:05.000Z"))
	case bson.Timestamp:
		return fmt.Sprintf("Timestamp(%d, %d)", x.T, x.I)
	case bson.ObjectID:
		return fmt.Sprintf("ObjectId(%q)", x.Hex())
	case bson.Binary:
		return fmt.Sprintf("BinData(%d, %q)", x.Subtype, base64.StdEncoding.EncodeToString(x.Data))
	case bson.Regex:
		return "/" + x.Pattern + "/" + x.Options
	case bson.MinKey:
		return "MinKey"
	case bson.MaxKey:
		return "MaxKey"
	case bson.Undefined:
		return "undefined"
	}
	return fmt.Sprintf("%T(%v)", v, v)
}

func shellDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0 && math.Signbit(f):
		return "-0.0"
	case f == math.Trunc(f) && math.Abs(f) < 1e15:
		return strconv.FormatFloat(f, 'f', 1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
