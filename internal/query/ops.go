package query

import (
	"math"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/decimal"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// existsMatcher implements {$exists: true}; false is its negation.
type existsMatcher struct{}

func (existsMatcher) matchValue(_ any, missing bool) bool { return !missing }

// truthy is BSONElement::trueValue: false, 0, null and undefined are false.
func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case nil, bson.Null, bson.Undefined:
		return false
	}
	if f, ok := bsonx.AsFloat64(v); ok {
		return f != 0
	}
	return true
}

// typeMatcher implements $type.
type typeMatcher struct {
	types  []byte
	number bool
}

func (m typeMatcher) matchValue(v any, missing bool) bool {
	if missing {
		return false
	}
	if m.number && bsonx.IsNumber(v) {
		return true
	}
	t := bsonx.TypeByte(v)
	for _, x := range m.types {
		if x == t {
			return true
		}
	}
	return false
}

func parseType(arg any) (typeMatcher, error) {
	var m typeMatcher
	list, isList := arg.(bson.A)
	if !isList {
		list = bson.A{arg}
	} else if len(list) == 0 {
		return m, badValue("$type must match at least one type")
	}
	for _, x := range list {
		if err := m.add(x); err != nil {
			return m, err
		}
	}
	return m, nil
}

func (m *typeMatcher) add(x any) error {
	if s, ok := x.(string); ok {
		if s == "number" {
			m.number = true
			return nil
		}
		t, ok := bsonx.TypeFromAlias(s)
		if !ok {
			return badValue("Unknown type name alias: %s", s)
		}
		m.types = append(m.types, t)
		return nil
	}
	if !bsonx.IsNumber(x) {
		return codeErr(mongoerr.TypeMismatch, "type must be represented as a number or a string")
	}
	n, ok := bsonx.AsInt64(x)
	if !ok || !validTypeCode(n) {
		return badValue("Invalid numerical type code: %v", x)
	}
	m.types = append(m.types, byte(n))
	return nil
}

func validTypeCode(n int64) bool {
	if n == -1 || n == 127 {
		return true
	}
	return n >= 1 && n <= 19 && bsonx.TypeName(byte(n)) != ""
}

// sizeMatcher implements $size (applied to whole arrays only).
type sizeMatcher int

func (m sizeMatcher) matchValue(v any, _ bool) bool {
	a, ok := v.(bson.A)
	return ok && len(a) == int(m)
}

func parseSize(arg any) (sizeMatcher, error) {
	if !bsonx.IsNumber(arg) {
		return 0, badValue("$size needs a number")
	}
	n, ok := bsonx.AsInt64(arg)
	if !ok {
		return 0, badValue("$size must be a whole number")
	}
	if n < 0 {
		return 0, badValue("$size may not be negative")
	}
	if n > math.MaxInt32 {
		return 0, badValue("$size is too large")
	}
	return sizeMatcher(n), nil
}

// modMatcher implements $mod: [divisor, remainder] on numbers truncated
// toward zero.
type modMatcher struct{ div, rem int64 }

func (m modMatcher) matchValue(v any, missing bool) bool {
	if missing {
		return false
	}
	if d, isDec := v.(bson.Decimal128); isDec {
		// Exactly, as MongoDB: truncated toward zero; NaN, ±Infinity and
		// values past int64 match nothing.
		n, ok := decimal.TruncInt64(d)
		return ok && n%m.div == m.rem
	}
	f, ok := bsonx.AsFloat64(v)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		return false
	}
	n, exact := bsonx.AsInt64(v)
	if !exact {
		n = truncInt64(f)
	}
	return n%m.div == m.rem
}

func truncInt64(f float64) int64 {
	switch {
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

func parseMod(arg any) (modMatcher, error) {
	a, ok := arg.(bson.A)
	if !ok {
		return modMatcher{}, badValue("malformed mod, needs to be an array")
	}
	switch {
	case len(a) < 2:
		return modMatcher{}, badValue("malformed mod, not enough elements")
	case len(a) > 2:
		return modMatcher{}, badValue("malformed mod, too many elements")
	}
	div, err := modArg(a[0], "divisor")
	if err != nil {
		return modMatcher{}, err
	}
	if div == 0 {
		return modMatcher{}, badValue("malformed mod, divisor cannot be 0")
	}
	rem, err := modArg(a[1], "remainder")
	return modMatcher{div: div, rem: rem}, err
}

func modArg(v any, what string) (int64, error) {
	f, ok := bsonx.AsFloat64(v)
	if !ok {
		return 0, badValue("malformed mod, %s not a number", what)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, badValue("malformed mod, %s value is invalid", what)
	}
	if n, exact := bsonx.AsInt64(v); exact {
		return n, nil
	}
	return truncInt64(f), nil
}
