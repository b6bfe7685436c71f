package expr

import (
	"encoding/hex"
	"math"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/decimal"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func registerType() {
	nary("$type", 1, 1, func(_ string, a []any) (any, error) { return typeName(a[0]), nil })
	nary("$isNumber", 1, 1, func(_ string, a []any) (any, error) { return bsonx.IsNumber(a[0]), nil })
	for op, to := range map[string]string{
		"$toString": "string", "$toInt": "int", "$toLong": "long", "$toDouble": "double",
		"$toBool": "bool", "$toObjectId": "objectId", "$toDate": "date", "$toDecimal": "decimal",
	} {
		nary(op, 1, 1, func(_ string, a []any) (any, error) {
			if IsNullish(a[0]) {
				return nil, nil
			}
			return Convert(a[0], to)
		})
	}
	operators["$convert"] = compileConvert
}

func compileConvert(name string, raw any, sc *scope) (Expr, error) {
	m, err := namedArgs(name, raw, sc, []string{"input", "to", "onError", "onNull", "format", "base"}, "input", "to")
	if err != nil {
		return nil, err
	}
	return funcExpr(func(doc bson.D, vars *Vars) (any, error) {
		in, err := m["input"].Eval(doc, vars)
		if err != nil {
			return nil, err
		}
		toV, err := m["to"].Eval(doc, vars)
		if err != nil {
			return nil, err
		}
		to, err := targetType(toV)
		if err != nil || to == "" {
			return nil, err
		}
		if IsNullish(in) {
			if m["onNull"] != nil {
				return m["onNull"].Eval(doc, vars)
			}
			return nil, nil
		}
		out, err := Convert(in, to)
		if err != nil && m["onError"] != nil && mongoerr.Is(err, mongoerr.ConversionFailure) {
			return m["onError"].Eval(doc, vars)
		}
		return out, err
	}), nil
}

// targetType resolves $convert's "to" (a type alias or numeric type code);
// "" means null (the result is null).
func targetType(v any) (string, error) {
	if IsNullish(v) {
		return "", nil
	}
	if s, ok := v.(string); ok {
		if _, ok := bsonx.TypeFromAlias(s); ok {
			return s, nil
		}
		return "", errf(mongoerr.BadValue, "Unknown type name: %s", s)
	}
	if n, ok := asInt(v); ok && n > 0 && n < 256 {
		if s := bsonx.TypeName(byte(n)); s != "" {
			return s, nil
		}
	}
	return "", errf(mongoerr.FailedToParse, "In $convert, numeric 'to' argument is not an integer or a valid type: %v", v)
}

func convFail(format string, args ...any) error {
	return mongoerr.New(mongoerr.ConversionFailure, format+" in $convert with no onError value", args...)
}

func unsupported(v any, to string) error {
	return convFail("Unsupported conversion from %s to %s", typeName(v), to)
}

// Convert converts a non-null value to the type named by alias as $convert
// does. Failures are ConversionFailure (241).
func Convert(v any, to string) (any, error) {
	switch to {
	case "double":
		return toDouble(v)
	case "int", "long":
		return toInteger(v, to)
	case "decimal":
		return toDecimal(v)
	case "bool":
		return toBool(v)
	case "string":
		return toStringConv(v)
	case "objectId":
		return toObjectID(v)
	case "date":
		return toDate(v)
	}
	if typeName(v) == to {
		return v, nil
	}
	return nil, unsupported(v, to)
}

func toDouble(v any) (any, error) {
	switch t := v.(type) {
	case bool:
		return b2f(t), nil
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
		if err != nil && !strings.Contains(err.Error(), "range") || t != strings.TrimSpace(t) {
			return nil, convFail("Failed to parse number '%s'", t)
		}
		return f, nil
	case bson.DateTime:
		return float64(t), nil
	}
	if f, ok := bsonx.AsFloat64(v); ok {
		return f, nil
	}
	return nil, unsupported(v, "double")
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func toInteger(v any, to string) (any, error) {
	lo, hi := int64(math.MinInt32), int64(math.MaxInt32)
	if to == "long" {
		lo, hi = math.MinInt64, math.MaxInt64
	}
	var i int64
	switch t := v.(type) {
	case bool:
		i = int64(b2f(t))
	case string:
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil || n < lo || n > hi {
			return nil, convFail("Failed to parse number '%s'", t)
		}
		i = n
	case bson.DateTime:
		if to != "long" {
			return nil, unsupported(v, to)
		}
		i = int64(t)
	case int32:
		i = int64(t)
	case int64:
		i = t
	case bson.Decimal128:
		switch {
		case t.IsNaN():
			return nil, convFail("Attempt to convert NaN value to integer type")
		case t.IsInf() != 0:
			return nil, convFail("Attempt to convert infinity value to integer type")
		}
		n, ok := decimal.TruncInt64(t)
		if !ok {
			return nil, convFail("Conversion would overflow target type")
		}
		i = n
	default:
		f, ok := bsonx.AsFloat64(v)
		if !ok {
			return nil, unsupported(v, to)
		}
		if math.IsNaN(f) || math.IsInf(f, 0) || f < float64(lo) || f >= -float64(lo) {
			return nil, convFail("Conversion would overflow target type")
		}
		i = int64(f)
	}
	if i < lo || i > hi {
		return nil, convFail("Conversion would overflow target type")
	}
	if to == "int" {
		return int32(i), nil
	}
	return i, nil
}

func toBool(v any) (any, error) {
	switch v.(type) {
	case bool, int32, int64, float64, bson.Decimal128:
		return Truthy(v), nil
	}
	return true, nil
}

func toStringConv(v any) (any, error) {
	switch t := v.(type) {
	case bool:
		return strconv.FormatBool(t), nil
	case bson.ObjectID:
		return t.Hex(), nil
	case bson.D, bson.A, bson.Binary, bson.Regex, bson.MinKey, bson.MaxKey:
		return nil, unsupported(v, "string")
	}
	s, err := ToString(v)
	if err != nil {
		return nil, unsupported(v, "string")
	}
	return s, nil
}

func toObjectID(v any) (any, error) {
	switch t := v.(type) {
	case bson.ObjectID:
		return t, nil
	case string:
		if len(t) != 24 {
			return nil, convFail("Failed to parse objectId '%s'", t)
		}
		b, err := hex.DecodeString(t)
		if err != nil {
			return nil, convFail("Failed to parse objectId '%s'", t)
		}
		var id bson.ObjectID
		copy(id[:], b)
		return id, nil
	}
	return nil, unsupported(v, "objectId")
}

func toDate(v any) (any, error) {
	switch t := v.(type) {
	case bson.DateTime:
		return t, nil
	case int64:
		return bson.DateTime(t), nil
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return nil, convFail("Conversion would overflow target type")
		}
		return bson.DateTime(int64(t)), nil
	case bson.Decimal128:
		ms, ok := decimal.TruncInt64(t)
		if !ok {
			return nil, convFail("Conversion would overflow target type")
		}
		return bson.DateTime(ms), nil
	case bson.ObjectID:
		return bson.NewDateTimeFromTime(t.Timestamp()), nil
	case bson.Timestamp:
		return bson.DateTime(int64(t.T) * 1000), nil
	case string:
		return parseDateString(t)
	}
	return nil, unsupported(v, "date")
}
