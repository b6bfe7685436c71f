package query

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

func fieldOf(d bson.D, name string) (any, bool) {
	for _, e := range d {
		if e.Key == name {
			return e.Value, true
		}
	}
	return nil, false
}

func (s *schema) checkObject(v any, det *[]bson.D) bool {
	d, isDoc := v.(bson.D)
	if !isDoc {
		return true
	}
	ok := s.checkRequired(d, det)
	if n := int64(len(d)); (s.minProps != nil && n < *s.minProps) || (s.maxProps != nil && n > *s.maxProps) {
		kw := "minProperties"
		if s.minProps == nil || n >= *s.minProps {
			kw = "maxProperties"
		}
		ok = fail(det, s.rule(kw, "specified number of properties was not satisfied", nil, bson.E{Key: "numberOfProperties", Value: int32(n)}))
	}
	if !s.checkProperties(d, det) {
		ok = false
	}
	if !s.checkAdditional(d, det) {
		ok = false
	}
	return s.checkDependencies(d, det) && ok
}

func (s *schema) checkRequired(d bson.D, det *[]bson.D) bool {
	var missing bson.A
	for _, name := range s.required {
		if _, ok := fieldOf(d, name); !ok {
			missing = append(missing, name)
			if det == nil {
				return false
			}
		}
	}
	if len(missing) == 0 {
		return true
	}
	return fail(det, s.rule("required", "", nil, bson.E{Key: "missingProperties", Value: missing}))
}

func (s *schema) checkProperties(d bson.D, det *[]bson.D) bool {
	var bad bson.A
	for _, p := range s.properties {
		fv, present := fieldOf(d, p.name)
		if !present {
			continue
		}
		if det == nil {
			if !p.s.eval(fv, nil) {
				return false
			}
			continue
		}
		var sd []bson.D
		if !p.s.eval(fv, &sd) {
			bad = append(bad, propFailure(p.name, p.s, sd))
		}
	}
	if len(bad) == 0 {
		return true
	}
	return fail(det, bson.D{{Key: "operatorName", Value: "properties"}, {Key: "propertiesNotSatisfied", Value: bad}})
}

func propFailure(name string, s *schema, sd []bson.D) bson.D {
	d := bson.D{{Key: "propertyName", Value: name}}
	if s.description != "" {
		d = append(d, bson.E{Key: "description", Value: s.description})
	}
	return append(d, bson.E{Key: "details", Value: sd})
}

// checkAdditional applies patternProperties and additionalProperties.
func (s *schema) checkAdditional(d bson.D, det *[]bson.D) bool {
	if s.patternProp == nil && s.addlAllowed == nil && s.addlSchema == nil {
		return true
	}
	ok := true
	var extra bson.A
	for _, e := range d {
		matched := s.hasProperty(e.Key)
		for _, pp := range s.patternProp {
			if !pp.re.re.MatchString(e.Key) {
				continue
			}
			matched = true
			var sd []bson.D
			if !pp.s.eval(e.Value, detOrNil(det, &sd)) {
				ok = fail(det, bson.D{{Key: "operatorName", Value: "patternProperties"},
					{Key: "details", Value: bson.A{bson.D{{Key: "propertyName", Value: e.Key}, {Key: "regexMatched", Value: pp.src}, {Key: "details", Value: sd}}}}})
			}
		}
		if matched {
			continue
		}
		if s.addlAllowed != nil && !*s.addlAllowed {
			extra = append(extra, e.Key)
		} else if s.addlSchema != nil {
			var sd []bson.D
			if !s.addlSchema.eval(e.Value, detOrNil(det, &sd)) {
				ok = fail(det, bson.D{{Key: "operatorName", Value: "additionalProperties"},
					{Key: "reason", Value: "at least one additional property did not match the subschema"},
					{Key: "failingProperty", Value: e.Key}, {Key: "details", Value: sd}})
			}
		}
		if !ok && det == nil {
			return false
		}
	}
	if len(extra) > 0 {
		ok = fail(det, s.rule("additionalProperties", "", nil, bson.E{Key: "additionalProperties", Value: extra}))
	}
	return ok
}

func detOrNil(det *[]bson.D, sd *[]bson.D) *[]bson.D {
	if det == nil {
		return nil
	}
	return sd
}

func (s *schema) hasProperty(name string) bool {
	for _, p := range s.properties {
		if p.name == name {
			return true
		}
	}
	return false
}

func (s *schema) checkDependencies(d bson.D, det *[]bson.D) bool {
	var bad bson.A
	for _, dep := range s.deps {
		if _, present := fieldOf(d, dep.prop); !present {
			continue
		}
		if dep.s != nil {
			var sd []bson.D
			if !dep.s.eval(d, detOrNil(det, &sd)) {
				bad = append(bad, bson.D{{Key: "conditionalProperty", Value: dep.prop}, {Key: "details", Value: sd}})
			}
		} else if missing := missingOf(d, dep.props); len(missing) > 0 {
			bad = append(bad, bson.D{{Key: "conditionalProperty", Value: dep.prop}, {Key: "missingProperties", Value: missing}})
		}
		if len(bad) > 0 && det == nil {
			return false
		}
	}
	if len(bad) == 0 {
		return true
	}
	return fail(det, bson.D{{Key: "operatorName", Value: "dependencies"}, {Key: "failingDependencies", Value: bad}})
}

func missingOf(d bson.D, names []string) bson.A {
	var out bson.A
	for _, n := range names {
		if _, ok := fieldOf(d, n); !ok {
			out = append(out, n)
		}
	}
	return out
}

func (s *schema) checkArray(v any, det *[]bson.D) bool {
	a, isArr := v.(bson.A)
	if !isArr {
		return true
	}
	ok := true
	n := int64(len(a))
	if s.minItems != nil && n < *s.minItems {
		ok = fail(det, s.rule("minItems", "array did not match specified length", v))
	}
	if s.maxItems != nil && n > *s.maxItems {
		ok = fail(det, s.rule("maxItems", "array did not match specified length", v))
	}
	if s.uniqueItems {
		if dup, found := firstDuplicate(a); found {
			ok = fail(det, s.rule("uniqueItems", "found a duplicate item", v, bson.E{Key: "duplicatedValue", Value: dup}))
		}
	}
	if !ok && det == nil {
		return false
	}
	return s.checkItems(a, det) && ok
}

func firstDuplicate(a bson.A) (any, bool) {
	for i := range a {
		for j := 0; j < i; j++ {
			if bsonx.CanonicalType(a[i]) == bsonx.CanonicalType(a[j]) && bsonx.Compare(a[i], a[j]) == 0 {
				return a[i], true
			}
		}
	}
	return nil, false
}

func (s *schema) checkItems(a bson.A, det *[]bson.D) bool {
	ok := true
	for i, x := range a {
		sub, kw := s.itemSchema(i)
		if sub == nil {
			if kw == "additionalItems" && s.addlItemsOK != nil && !*s.addlItemsOK {
				return fail(det, s.rule("additionalItems", "found additional items", nil, bson.E{Key: "additionalItems", Value: a[len(s.itemsList):]}))
			}
			continue
		}
		var sd []bson.D
		if !sub.eval(x, detOrNil(det, &sd)) {
			reason := "At least one item did not match the sub-schema"
			if kw == "additionalItems" {
				reason = "At least one additional item did not match the sub-schema"
			}
			ok = fail(det, bson.D{{Key: "operatorName", Value: kw}, {Key: "reason", Value: reason}, {Key: "itemIndex", Value: int32(i)}, {Key: "details", Value: sd}})
			if det == nil {
				return false
			}
		}
	}
	return ok
}

// itemSchema is the schema item i must satisfy and the keyword that says
// so; nil when unconstrained.
func (s *schema) itemSchema(i int) (*schema, string) {
	if s.items != nil {
		return s.items, "items"
	}
	if s.itemsList == nil {
		return nil, ""
	}
	if i < len(s.itemsList) {
		return s.itemsList[i], "items"
	}
	return s.addlItems, "additionalItems"
}
