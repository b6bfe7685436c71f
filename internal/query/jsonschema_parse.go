package query

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// parseJSONSchema compiles the argument of a top-level $jsonSchema.
func parseJSONSchema(v any) (*schema, error) {
	d, ok := v.(bson.D)
	if !ok {
		return nil, codeErr(mongoerr.TypeMismatch, "$jsonSchema must be an object")
	}
	return parseSchema(d, 0)
}

func parseSchema(d bson.D, depth int) (*schema, error) {
	if depth > maxDepth {
		return nil, badValue("exceeded maximum query tree depth of %d", maxDepth)
	}
	s := &schema{spec: d}
	seen := map[string]bool{}
	for _, e := range d {
		if seen[e.Key] {
			return nil, codeErr(mongoerr.FailedToParse, "Duplicate $jsonSchema keyword: %s", e.Key)
		}
		seen[e.Key] = true
		if err := s.keyword(e, depth); err != nil {
			return nil, err
		}
	}
	if seen["type"] && seen["bsonType"] {
		return nil, codeErr(mongoerr.FailedToParse, "Cannot specify both $jsonSchema keywords 'type' and 'bsonType'")
	}
	for _, pair := range [][2]string{{"exclusiveMaximum", "maximum"}, {"exclusiveMinimum", "minimum"}} {
		if seen[pair[0]] && !seen[pair[1]] {
			return nil, codeErr(mongoerr.FailedToParse, "$jsonSchema keyword '%s' must be a present if %s is present", pair[1], pair[0])
		}
	}
	return s, nil
}

// keyword parses one keyword of a schema into s.
func (s *schema) keyword(e bson.E, depth int) (err error) {
	k, v := e.Key, e.Value
	switch k {
	case "bsonType", "type":
		s.typeKw = k
		s.types, err = schemaTypes(k, v)
	case "required":
		s.required, err = uniqueStrings(k, v)
	case "properties":
		s.properties, err = parseProperties(v, depth)
	case "patternProperties":
		s.patternProp, err = parsePatternProperties(v, depth)
	case "additionalProperties":
		s.addlAllowed, s.addlSchema, err = boolOrSchema(k, v, depth)
	case "minProperties", "maxProperties", "minItems", "maxItems", "minLength", "maxLength":
		err = s.limit(k, v)
	case "dependencies":
		s.deps, err = parseDependencies(v, depth)
	case "items":
		err = s.parseItems(v, depth)
	case "additionalItems":
		s.addlItemsOK, s.addlItems, err = boolOrSchema(k, v, depth)
	case "uniqueItems":
		s.uniqueItems, err = schemaBool(k, v)
	case "minimum", "maximum", "multipleOf":
		err = s.number(k, v)
	case "exclusiveMinimum":
		s.exclMin, err = schemaBool(k, v)
	case "exclusiveMaximum":
		s.exclMax, err = schemaBool(k, v)
	case "pattern":
		err = s.parsePattern(v)
	case "enum":
		s.enum, err = parseEnum(v)
	case "allOf", "anyOf", "oneOf":
		err = s.parseLogical(k, v, depth)
	case "not":
		s.not, err = subSchema(k, v, depth)
	case "title", "description":
		str, ok := v.(string)
		if !ok {
			return codeErr(mongoerr.TypeMismatch, "$jsonSchema keyword '%s' must be a string", k)
		}
		if k == "description" {
			s.description = str
		}
	default:
		if unsupportedSchemaKeywords[k] {
			return codeErr(mongoerr.FailedToParse, "$jsonSchema keyword '%s' is not currently supported", k)
		}
		return codeErr(mongoerr.FailedToParse, "Unknown $jsonSchema keyword: %s", k)
	}
	return err
}

// schemaTypes parses bsonType (BSON aliases, "number") or type (JSON
// names), each a string or a non-empty array of unique strings.
func schemaTypes(k string, v any) (typeMatcher, error) {
	var m typeMatcher
	list, isList := v.(bson.A)
	if !isList {
		list = bson.A{v}
	} else if len(list) == 0 {
		return m, codeErr(mongoerr.FailedToParse, "$jsonSchema keyword '%s' must name at least one type", k)
	}
	seen := map[string]bool{}
	for _, x := range list {
		name, ok := x.(string)
		if !ok {
			return m, codeErr(mongoerr.TypeMismatch, "$jsonSchema keyword '%s' must be either a string or an array of strings", k)
		}
		if seen[name] {
			return m, codeErr(mongoerr.FailedToParse, "$jsonSchema keyword '%s' has duplicate value: %s", k, name)
		}
		seen[name] = true
		if k == "type" {
			if name == "integer" {
				return m, badValue("$jsonSchema type 'integer' is not currently supported.")
			}
			alias, known := jsonTypes[name]
			if !known {
				return m, badValue("Unknown $jsonSchema type: %s", name)
			}
			name = alias
		}
		if err := m.add(name); err != nil {
			return m, err
		}
	}
	return m, nil
}

func uniqueStrings(k string, v any) ([]string, error) {
	a, ok := v.(bson.A)
	if !ok {
		return nil, codeErr(mongoerr.TypeMismatch, "$jsonSchema keyword '%s' must be an array", k)
	}
	if len(a) == 0 {
		return nil, badValue("$jsonSchema keyword '%s' cannot be an empty array", k)
	}
	out := make([]string, 0, len(a))
	seen := map[string]bool{}
	for _, x := range a {
		str, ok := x.(string)
		if !ok {
			return nil, codeErr(mongoerr.TypeMismatch, "$jsonSchema keyword '%s' must contain only strings", k)
		}
		if seen[str] {
			return nil, codeErr(mongoerr.FailedToParse, "$jsonSchema keyword '%s' array cannot contain duplicate values", k)
		}
		seen[str] = true
		out = append(out, str)
	}
	return out, nil
}

func subSchema(k string, v any, depth int) (*schema, error) {
	d, ok := v.(bson.D)
	if !ok {
		return nil, codeErr(mongoerr.TypeMismatch, "$jsonSchema keyword '%s' must be an object", k)
	}
	return parseSchema(d, depth+1)
}

func boolOrSchema(k string, v any, depth int) (*bool, *schema, error) {
	if b, ok := v.(bool); ok {
		return &b, nil, nil
	}
	if _, ok := v.(bson.D); !ok {
		return nil, nil, codeErr(mongoerr.TypeMismatch, "$jsonSchema keyword '%s' must be either an object or a boolean", k)
	}
	s, err := subSchema(k, v, depth)
	return nil, s, err
}

func schemaBool(k string, v any) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, codeErr(mongoerr.TypeMismatch, "$jsonSchema keyword '%s' must be a boolean", k)
	}
	return b, nil
}

// limit parses a non-negative integral count keyword.
func (s *schema) limit(k string, v any) error {
	if !bsonx.IsNumber(v) {
		return codeErr(mongoerr.TypeMismatch, "$jsonSchema keyword '%s' must be a number", k)
	}
	n, ok := bsonx.AsInt64(v)
	if f, isF := bsonx.AsFloat64(v); !ok || (isF && f != math.Trunc(f)) || n < 0 {
		return codeErr(mongoerr.FailedToParse, "$jsonSchema keyword '%s' must be a representable as a non-negative integer", k)
	}
	p := &n
	switch k {
	case "minProperties":
		s.minProps = p
	case "maxProperties":
		s.maxProps = p
	case "minItems":
		s.minItems = p
	case "maxItems":
		s.maxItems = p
	case "minLength":
		s.minLength = p
	default:
		s.maxLength = p
	}
	return nil
}

func (s *schema) number(k string, v any) error {
	if !bsonx.IsNumber(v) {
		return codeErr(mongoerr.TypeMismatch, "$jsonSchema keyword '%s' must be a number", k)
	}
	switch k {
	case "minimum":
		s.minimum = v
	case "maximum":
		s.maximum = v
	default:
		if f, _ := bsonx.AsFloat64(v); !(f > 0) {
			return codeErr(mongoerr.FailedToParse, "$jsonSchema keyword 'multipleOf' must have a positive value")
		}
		s.multipleOf = v
	}
	return nil
}
