package expr

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func registerString() {
	nary("$concat", 0, -1, evalConcat)
	nary("$substr", 3, 3, evalSubstrBytes)
	nary("$substrBytes", 3, 3, evalSubstrBytes)
	nary("$substrCP", 3, 3, evalSubstrCP)
	nary("$toLower", 1, 1, caseMap(asciiLower))
	nary("$toUpper", 1, 1, caseMap(asciiUpper))
	nary("$strLenBytes", 1, 1, func(n string, a []any) (any, error) {
		s, ok := a[0].(string)
		if !ok {
			return nil, errf(mongoerr.StrLenBytesNotString, "$strLenBytes requires a string argument, found: %s", typeName(a[0]))
		}
		return int32(len(s)), nil
	})
	nary("$strLenCP", 1, 1, func(n string, a []any) (any, error) {
		s, ok := a[0].(string)
		if !ok {
			return nil, errf(mongoerr.StrLenCPNotString, "$strLenCP requires a string argument, found: %s", typeName(a[0]))
		}
		return int32(utf8.RuneCountInString(s)), nil
	})
	nary("$split", 2, 2, evalSplit)
	nary("$strcasecmp", 2, 2, evalStrcasecmp)
	nary("$indexOfBytes", 2, 4, indexOf(false))
	nary("$indexOfCP", 2, 4, indexOf(true))
	operators["$trim"] = compileTrim(true, true)
	operators["$ltrim"] = compileTrim(true, false)
	operators["$rtrim"] = compileTrim(false, true)
	operators["$regexMatch"] = compileRegex(regexMatch)
	operators["$regexFind"] = compileRegex(regexFind)
	operators["$regexFindAll"] = compileRegex(regexFindAll)
	operators["$replaceOne"] = compileReplace(1)
	operators["$replaceAll"] = compileReplace(-1)
}

// ToString coerces v to a string as $concat-free string operators do
// ($substr, $toLower, $strcasecmp): null and Missing become "".
func ToString(v any) (string, error) {
	switch t := v.(type) {
	case string:
		return t, nil
	case bson.Symbol:
		return string(t), nil
	case nil, MissingValue, bson.Undefined:
		return "", nil
	case int32:
		return strconv.FormatInt(int64(t), 10), nil
	case int64:
		return strconv.FormatInt(t, 10), nil
	case float64:
		return formatDouble(t), nil
	case bson.Decimal128:
		return t.String(), nil
	case bson.DateTime:
		return formatISODate(t), nil
	case bson.Timestamp:
		return formatISODate(bson.DateTime(int64(t.T) * 1000)), nil
	}
	return "", errf(mongoerr.StringConversionBadType, "can't convert from BSON type %s to String", typeName(v))
}

func formatDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == math.Trunc(f) && math.Abs(f) < 1e15:
		if f == 0 && math.Signbit(f) {
			return "-0"
		}
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func evalConcat(name string, args []any) (any, error) {
	var b strings.Builder
	for _, a := range args {
		if IsNullish(a) {
			return nil, nil
		}
		s, ok := a.(string)
		if !ok {
			return nil, errf(mongoerr.ConcatNotString, "$concat only supports strings, not %s", typeName(a))
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

func evalSubstrBytes(name string, args []any) (any, error) {
	s, err := ToString(args[0])
	if err != nil {
		return nil, err
	}
	startN, ok := toNumber(args[1])
	if !ok {
		return nil, errf(mongoerr.SubstrStartNotNumeric, "%s: starting index must be a numeric type (is BSON type %s)", name, typeName(args[1]))
	}
	lenN, ok := toNumber(args[2])
	if !ok {
		return nil, errf(mongoerr.SubstrLengthNotNumeric, "%s: length must be a numeric type (is BSON type %s)", name, typeName(args[2]))
	}
	start, length := int64(startN.float()), int64(lenN.float())
	if start < 0 || start >= int64(len(s)) {
		return "", nil
	}
	if start > 0 && !utf8.RuneStart(s[start]) {
		return nil, errf(mongoerr.SubstrStartMidCharacter, "%s:  Invalid range, starting index is a UTF-8 continuation byte.", name)
	}
	end := int64(len(s))
	if length >= 0 && start+length < end {
		end = start + length
	}
	if end < int64(len(s)) && !utf8.RuneStart(s[end]) {
		return nil, errf(mongoerr.SubstrEndMidCharacter, "%s:  Invalid range, ending index is in the middle of a UTF-8 character.", name)
	}
	return s[start:end], nil
}

func evalSubstrCP(name string, args []any) (any, error) {
	s, err := ToString(args[0])
	if err != nil {
		return nil, err
	}
	if !bsonx.IsNumber(args[1]) {
		return nil, errf(mongoerr.SubstrCPStartNotNumeric, "$substrCP: starting index must be a numeric type (is BSON type %s)", typeName(args[1]))
	}
	start, ok := asInt32Arg(args[1])
	if !ok {
		return nil, errf(mongoerr.SubstrCPStartNotInt32, "$substrCP: starting index cannot be represented as a 32-bit integral value")
	}
	if !bsonx.IsNumber(args[2]) {
		return nil, errf(mongoerr.SubstrCPLengthNotNumeric, "$substrCP: length must be a numeric type (is BSON type %s)", typeName(args[2]))
	}
	length, ok := asInt32Arg(args[2])
	if !ok {
		return nil, errf(mongoerr.SubstrCPLengthNotInt32, "$substrCP: length cannot be represented as a 32-bit integral value")
	}
	if length < 0 {
		return nil, errf(mongoerr.SubstrCPLengthNegative, "$substrCP: length must be a nonnegative integer.")
	}
	if start < 0 {
		return nil, errf(mongoerr.SubstrCPStartNegative, "$substrCP: the starting index must be nonnegative integer.")
	}
	r := []rune(s)
	if start >= int64(len(r)) {
		return "", nil
	}
	end := min(start+length, int64(len(r)))
	return string(r[start:end]), nil
}

func caseMap(fn func(string) string) func(string, []any) (any, error) {
	return func(name string, args []any) (any, error) {
		s, err := ToString(args[0])
		if err != nil {
			return nil, err
		}
		return fn(s), nil
	}
}

// MongoDB's $toLower/$toUpper change ASCII letters only.
func asciiLower(s string) string { return mapASCII(s, 'A', 'Z', 'a'-'A') }
func asciiUpper(s string) string { return mapASCII(s, 'a', 'z', 'A'-'a') }

func mapASCII(s string, lo, hi byte, delta int) string {
	b := []byte(s)
	for i, c := range b {
		if c >= lo && c <= hi {
			b[i] = byte(int(c) + delta)
		}
	}
	return string(b)
}

func evalSplit(name string, args []any) (any, error) {
	if IsNullish(args[0]) {
		return nil, nil
	}
	s, ok := args[0].(string)
	if !ok {
		return nil, errf(mongoerr.SplitInputNotString, "$split requires an expression that evaluates to a string as a first argument, found: %s", typeName(args[0]))
	}
	sep, ok := args[1].(string)
	if !ok {
		return nil, errf(mongoerr.SplitSeparatorNotString, "$split requires an expression that evaluates to a string as a second argument, found: %s", typeName(args[1]))
	}
	if sep == "" {
		return nil, errf(mongoerr.SplitSeparatorEmpty, "$split requires a non-empty separator")
	}
	out := bson.A{}
	for _, p := range strings.Split(s, sep) {
		out = append(out, p)
	}
	return out, nil
}

func evalStrcasecmp(name string, args []any) (any, error) {
	a, err := ToString(args[0])
	if err != nil {
		return nil, err
	}
	b, err := ToString(args[1])
	if err != nil {
		return nil, err
	}
	return int32(strings.Compare(asciiUpper(a), asciiUpper(b))), nil
}
