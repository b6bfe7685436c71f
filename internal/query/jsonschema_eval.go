package query

import (
	"math"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// eval reports whether v satisfies s. When det is not nil it checks every
// keyword and appends one MongoDB-shaped errInfo entry per rule v fails
// (schemaRulesNotSatisfied); otherwise it stops at the first failure.
// Each check handles the keywords of one kind of value and passes values
// of other kinds.
func (s *schema) eval(v any, det *[]bson.D) bool {
	ok := true
	checks := [...]func(any, *[]bson.D) bool{s.checkType, s.checkEnum, s.checkNumber, s.checkString,
		s.checkObject, s.checkArray, s.checkLogical}
	for _, check := range checks {
		if !check(v, det) {
			ok = false
			if det == nil {
				return false
			}
		}
	}
	return ok
}

// fail appends a rule failure to det (if collecting) and returns false.
func fail(det *[]bson.D, d bson.D) bool {
	if det != nil {
		*det = append(*det, d)
	}
	return false
}

// rule is the common errInfo entry: the keyword, how it was specified, the
// reason and the value considered.
func (s *schema) rule(kw, reason string, v any, extra ...bson.E) bson.D {
	d := bson.D{{Key: "operatorName", Value: kw}, {Key: "specifiedAs", Value: bson.D{{Key: kw, Value: s.specOf(kw)}}}}
	if reason != "" {
		d = append(d, bson.E{Key: "reason", Value: reason})
	}
	if v != nil {
		d = append(d, bson.E{Key: "consideredValue", Value: v})
	}
	return append(d, extra...)
}

func (s *schema) specOf(kw string) any {
	for _, e := range s.spec {
		if e.Key == kw {
			return e.Value
		}
	}
	return nil
}

func (s *schema) checkType(v any, det *[]bson.D) bool {
	if s.typeKw == "" || s.types.matchValue(v, false) {
		return true
	}
	return fail(det, s.rule(s.typeKw, "type did not match", v, bson.E{Key: "consideredType", Value: bsonx.TypeAlias(v)}))
}

func (s *schema) checkEnum(v any, det *[]bson.D) bool {
	if s.enum == nil {
		return true
	}
	for _, x := range s.enum {
		if bsonx.CanonicalType(x) == bsonx.CanonicalType(v) && bsonx.Compare(x, v) == 0 {
			return true
		}
	}
	return fail(det, s.rule("enum", "value was not found in enum", v))
}

func (s *schema) checkNumber(v any, det *[]bson.D) bool {
	if !bsonx.IsNumber(v) {
		return true
	}
	ok := true
	if s.minimum != nil {
		c := bsonx.Compare(v, s.minimum)
		if c < 0 || (c == 0 && s.exclMin) {
			ok = fail(det, s.rule("minimum", "comparison failed", v))
		}
	}
	if s.maximum != nil {
		c := bsonx.Compare(v, s.maximum)
		if c > 0 || (c == 0 && s.exclMax) {
			ok = fail(det, s.rule("maximum", "comparison failed", v))
		}
	}
	if s.multipleOf != nil && !isMultiple(v, s.multipleOf) {
		ok = fail(det, s.rule("multipleOf", "considered value is not a multiple of the specified value", v))
	}
	return ok
}

func isMultiple(v, of any) bool {
	x, _ := bsonx.AsFloat64(v)
	m, _ := bsonx.AsFloat64(of)
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return false
	}
	return math.Mod(x, m) == 0
}

func (s *schema) checkString(v any, det *[]bson.D) bool {
	str, isStr := v.(string)
	if !isStr {
		return true
	}
	ok := true
	n := int64(utf8.RuneCountInString(str))
	if s.minLength != nil && n < *s.minLength {
		ok = fail(det, s.rule("minLength", "specified string length was not satisfied", v))
	}
	if s.maxLength != nil && n > *s.maxLength {
		ok = fail(det, s.rule("maxLength", "specified string length was not satisfied", v))
	}
	if s.pattern != nil && !s.pattern.re.MatchString(str) {
		ok = fail(det, s.rule("pattern", "regular expression did not match", v))
	}
	return ok
}

func (s *schema) checkLogical(v any, det *[]bson.D) bool {
	ok := true
	if s.allOf != nil {
		if bad := failingSchemas(s.allOf, v, det != nil); len(bad) > 0 {
			ok = fail(det, bson.D{{Key: "operatorName", Value: "allOf"}, {Key: "schemasNotSatisfied", Value: bad}})
		}
	}
	if s.anyOf != nil {
		if bad := failingSchemas(s.anyOf, v, det != nil); len(bad) == len(s.anyOf) {
			ok = fail(det, bson.D{{Key: "operatorName", Value: "anyOf"}, {Key: "schemasNotSatisfied", Value: bad}})
		}
	}
	if s.oneOf != nil && !s.checkOneOf(v, det) {
		ok = false
	}
	if s.not != nil && s.not.eval(v, nil) {
		ok = fail(det, bson.D{{Key: "operatorName", Value: "not"}, {Key: "reason", Value: "child expression matched"}})
	}
	return ok
}

func (s *schema) checkOneOf(v any, det *[]bson.D) bool {
	var matching bson.A
	for i, sub := range s.oneOf {
		if sub.eval(v, nil) {
			matching = append(matching, int32(i))
		}
	}
	switch {
	case len(matching) == 1:
		return true
	case len(matching) > 1:
		return fail(det, bson.D{{Key: "operatorName", Value: "oneOf"}, {Key: "reason", Value: "more than one subschema matched"},
			{Key: "matchingSchemaIndexes", Value: matching}})
	}
	return fail(det, bson.D{{Key: "operatorName", Value: "oneOf"}, {Key: "schemasNotSatisfied", Value: failingSchemas(s.oneOf, v, det != nil)}})
}

// failingSchemas lists {index, details} of the subschemas v fails (only
// indexes unless explain).
func failingSchemas(list []*schema, v any, explain bool) bson.A {
	var out bson.A
	for i, sub := range list {
		if !explain {
			if !sub.eval(v, nil) {
				out = append(out, int32(i))
			}
			continue
		}
		var sd []bson.D
		if !sub.eval(v, &sd) {
			out = append(out, bson.D{{Key: "index", Value: int32(i)}, {Key: "details", Value: sd}})
		}
	}
	return out
}
