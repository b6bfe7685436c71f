package query

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func parseProperties(v any, depth int) ([]propSchema, error) {
	d, ok := v.(bson.D)
	if !ok {
		return nil, codeErr(mongoerr.TypeMismatch, "$jsonSchema keyword 'properties' must be an object")
	}
	out := make([]propSchema, 0, len(d))
	for _, e := range d {
		sub, ok := e.Value.(bson.D)
		if !ok {
			return nil, codeErr(mongoerr.TypeMismatch, "Nested schema for $jsonSchema property '%s' must be an object", e.Key)
		}
		s, err := parseSchema(sub, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, propSchema{name: e.Key, s: s})
	}
	return out, nil
}

func parsePatternProperties(v any, depth int) ([]patternSchema, error) {
	d, ok := v.(bson.D)
	if !ok {
		return nil, codeErr(mongoerr.TypeMismatch, "$jsonSchema keyword 'patternProperties' must be an object")
	}
	out := make([]patternSchema, 0, len(d))
	for _, e := range d {
		sub, ok := e.Value.(bson.D)
		if !ok {
			return nil, codeErr(mongoerr.TypeMismatch, "$jsonSchema keyword 'patternProperties' has property '%s' which is not an object", e.Key)
		}
		re, err := newRegex(e.Key, "")
		if err != nil {
			return nil, err
		}
		s, err := parseSchema(sub, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, patternSchema{src: e.Key, re: re, s: s})
	}
	return out, nil
}

func parseDependencies(v any, depth int) ([]dependency, error) {
	d, ok := v.(bson.D)
	if !ok {
		return nil, codeErr(mongoerr.TypeMismatch, "$jsonSchema keyword 'dependencies' must be an object")
	}
	out := make([]dependency, 0, len(d))
	for _, e := range d {
		dep := dependency{prop: e.Key}
		var err error
		switch x := e.Value.(type) {
		case bson.D:
			dep.s, err = parseSchema(x, depth+1)
		case bson.A:
			dep.props, err = uniqueStrings("dependencies", x)
		default:
			err = codeErr(mongoerr.TypeMismatch, "property '%s' in $jsonSchema keyword 'dependencies' must be either an object or an array", e.Key)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, dep)
	}
	return out, nil
}

func (s *schema) parseItems(v any, depth int) error {
	switch x := v.(type) {
	case bson.D:
		sub, err := parseSchema(x, depth+1)
		s.items = sub
		return err
	case bson.A:
		list, err := schemaList("items", x, depth, true)
		s.itemsList = list
		return err
	}
	return codeErr(mongoerr.TypeMismatch, "$jsonSchema keyword 'items' must be an array or an object")
}

func schemaList(k string, a bson.A, depth int, emptyOK bool) ([]*schema, error) {
	if len(a) == 0 && !emptyOK {
		return nil, badValue("$jsonSchema keyword '%s' must be a non-empty array", k)
	}
	out := make([]*schema, 0, len(a))
	for _, x := range a {
		d, ok := x.(bson.D)
		if !ok {
			return nil, codeErr(mongoerr.TypeMismatch, "$jsonSchema keyword '%s' must be an array of objects", k)
		}
		s, err := parseSchema(d, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func (s *schema) parseLogical(k string, v any, depth int) error {
	a, ok := v.(bson.A)
	if !ok {
		return codeErr(mongoerr.TypeMismatch, "$jsonSchema keyword '%s' must be an array", k)
	}
	list, err := schemaList(k, a, depth, false)
	switch k {
	case "allOf":
		s.allOf = list
	case "anyOf":
		s.anyOf = list
	default:
		s.oneOf = list
	}
	return err
}

func (s *schema) parsePattern(v any) error {
	str, ok := v.(string)
	if !ok {
		return codeErr(mongoerr.TypeMismatch, "$jsonSchema keyword 'pattern' must be a string")
	}
	re, err := newRegex(str, "")
	s.pattern = re
	return err
}

func parseEnum(v any) (bson.A, error) {
	a, ok := v.(bson.A)
	if !ok {
		return nil, codeErr(mongoerr.TypeMismatch, "$jsonSchema keyword 'enum' must be an array")
	}
	if len(a) == 0 {
		return nil, codeErr(mongoerr.FailedToParse, "$jsonSchema keyword 'enum' cannot have empty array")
	}
	for i := range a {
		for j := 0; j < i; j++ {
			if bsonx.Compare(a[i], a[j]) == 0 {
				return nil, codeErr(mongoerr.FailedToParse, "$jsonSchema keyword 'enum' array cannot contain duplicate values")
			}
		}
	}
	return a, nil
}
