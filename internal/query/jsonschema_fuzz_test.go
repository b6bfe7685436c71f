package query

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// FuzzJSONSchema compiles arbitrary BSON as a $jsonSchema and validates
// arbitrary documents with it: nothing may panic, and the explained
// evaluation (errInfo details) agrees with the plain one.
func FuzzJSONSchema(f *testing.F) {
	seeds := [][2]string{
		{`{"required": ["a"], "properties": {"a": {"bsonType": "int", "minimum": 0}}}`, `{"a": -1}`},
		{`{"items": [{"type": "string"}], "additionalItems": false, "uniqueItems": true}`, `{"x": 1}`},
		{`{"properties": {"a": {"items": {"enum": [1, "x"]}, "minItems": 1}}}`, `{"a": [1, "y"]}`},
		{`{"patternProperties": {"^x": {"maxLength": 2}}, "additionalProperties": {"type": "number"}}`, `{"xa": "long", "b": "s"}`},
		{`{"oneOf": [{"required": ["a"]}, {"not": {"minProperties": 1}}], "dependencies": {"a": ["b"]}}`, `{"a": 1}`},
	}
	for _, s := range seeds {
		f.Add(encodeJSON(f, s[0]), encodeJSON(f, s[1]))
	}
	f.Fuzz(func(t *testing.T, schemaRaw, docRaw []byte) {
		spec, err1 := bsonx.Decode(schemaRaw)
		doc, err2 := bsonx.Decode(docRaw)
		if err1 != nil || err2 != nil {
			return
		}
		s, err := parseJSONSchema(spec)
		if err != nil {
			return
		}
		var det []bson.D
		plain, explained := s.eval(doc, nil), s.eval(doc, &det)
		if plain != explained || (len(det) == 0) != plain {
			t.Fatalf("eval %v, explained %v with %d details for %v / %v", plain, explained, len(det), spec, doc)
		}
		_ = ValidationDetails(bson.D{{Key: "$jsonSchema", Value: spec}}, doc)
	})
}
