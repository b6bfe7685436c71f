package query

import (
	"go.mongodb.org/mongo-driver/v2/bson"
)

// schema is one compiled $jsonSchema (sub)schema: MongoDB's subset of JSON
// Schema draft 4 plus bsonType. Keywords that constrain one kind of value
// (minimum on numbers, minLength on strings, properties on objects, items
// on arrays) ignore values of other kinds, as JSON Schema does.
//
// Invariant: a schema is immutable once parsed; eval never fails and
// never panics, whatever the value.
type schema struct {
	spec bson.D // as written, for errInfo's specifiedAs

	typeKw string      // "bsonType" or "type", "" when absent
	types  typeMatcher // the accepted types

	required    []string
	properties  []propSchema
	patternProp []patternSchema
	addlAllowed *bool   // additionalProperties: true/false
	addlSchema  *schema // additionalProperties: {schema}
	minProps    *int64
	maxProps    *int64
	deps        []dependency

	items       *schema   // items: {schema}
	itemsList   []*schema // items: [schemas]
	addlItemsOK *bool     // additionalItems: true/false
	addlItems   *schema   // additionalItems: {schema}
	minItems    *int64
	maxItems    *int64
	uniqueItems bool

	minimum, maximum any
	exclMin, exclMax bool
	multipleOf       any

	minLength, maxLength *int64
	pattern              *regexMatcher

	enum  bson.A
	allOf []*schema
	anyOf []*schema
	oneOf []*schema
	not   *schema

	description string
}

type propSchema struct {
	name string
	s    *schema
}

type patternSchema struct {
	src string
	re  *regexMatcher
	s   *schema
}

// dependency is one entry of "dependencies": when prop is present, the
// document must satisfy s, or hold every field in props.
type dependency struct {
	prop  string
	s     *schema
	props []string
}

// schemaNode is the top-level $jsonSchema filter clause.
type schemaNode struct{ s *schema }

func (n schemaNode) match(doc bson.D, _ *matchState) bool {
	return n.s.eval(doc, nil)
}

// unsupportedSchemaKeywords are JSON Schema keywords MongoDB parses but
// refuses.
var unsupportedSchemaKeywords = map[string]bool{
	"$ref": true, "$schema": true, "default": true, "definitions": true, "format": true, "id": true,
}

// jsonTypes maps the JSON Schema "type" names MongoDB accepts to BSON
// types ("number" matches every numeric type).
var jsonTypes = map[string]string{
	"object": "object", "array": "array", "boolean": "bool", "string": "string", "null": "null", "number": "number",
}
