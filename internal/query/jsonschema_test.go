package query

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestJSONSchemaMatch(t *testing.T) {
	cases := []struct {
		schema string
		doc    string
		want   bool
	}{
		{`{}`, `{"a": 1}`, true},
		{`{"bsonType": "object"}`, `{"a": 1}`, true},
		{`{"required": ["a", "b"]}`, `{"a": 1}`, false},
		{`{"required": ["a"]}`, `{"a": null}`, true},
		{`{"properties": {"a": {"bsonType": "string"}}}`, `{"a": 1}`, false},
		{`{"properties": {"a": {"bsonType": "string"}}}`, `{"b": 1}`, true},
		{`{"properties": {"a": {"bsonType": ["string", "int"]}}}`, `{"a": 1}`, true},
		{`{"properties": {"a": {"bsonType": "number"}}}`, `{"a": 1.5}`, true},
		{`{"properties": {"a": {"type": "number"}}}`, `{"a": {"$numberLong": "3"}}`, true},
		{`{"properties": {"a": {"type": "boolean"}}}`, `{"a": true}`, true},
		{`{"properties": {"a": {"type": "object"}}}`, `{"a": [1]}`, false},
		{`{"properties": {"a": {"minimum": 5}}}`, `{"a": 5}`, true},
		{`{"properties": {"a": {"minimum": 5, "exclusiveMinimum": true}}}`, `{"a": 5}`, false},
		{`{"properties": {"a": {"maximum": 5}}}`, `{"a": 6.5}`, false},
		{`{"properties": {"a": {"maximum": 5}}}`, `{"a": "x"}`, true},
		{`{"properties": {"a": {"multipleOf": 3}}}`, `{"a": 9}`, true},
		{`{"properties": {"a": {"multipleOf": 3}}}`, `{"a": 10}`, false},
		{`{"properties": {"a": {"minLength": 2, "maxLength": 3}}}`, `{"a": "héé"}`, true},
		{`{"properties": {"a": {"minLength": 2}}}`, `{"a": "x"}`, false},
		{`{"properties": {"a": {"pattern": "^x+$"}}}`, `{"a": "xxy"}`, false},
		{`{"properties": {"a": {"enum": [1, "b"]}}}`, `{"a": 1.0}`, true},
		{`{"properties": {"a": {"enum": [1, "b"]}}}`, `{"a": "c"}`, false},
		{`{"additionalProperties": false, "properties": {"_id": {}, "a": {}}}`, `{"_id": 1, "a": 2}`, true},
		{`{"additionalProperties": false, "properties": {"a": {}}}`, `{"_id": 1, "a": 2}`, false},
		{`{"additionalProperties": {"bsonType": "int"}, "properties": {"a": {}}}`, `{"a": "s", "b": 2}`, true},
		{`{"additionalProperties": {"bsonType": "int"}}`, `{"a": "s"}`, false},
		{`{"patternProperties": {"^x": {"bsonType": "int"}}, "additionalProperties": false}`, `{"x1": 1, "x2": 2}`, true},
		{`{"patternProperties": {"^x": {"bsonType": "int"}}}`, `{"x1": "s"}`, false},
		{`{"minProperties": 2}`, `{"a": 1}`, false},
		{`{"maxProperties": 1}`, `{"a": 1}`, true},
		{`{"properties": {"a": {"items": {"bsonType": "int"}}}}`, `{"a": [1, 2]}`, true},
		{`{"properties": {"a": {"items": {"bsonType": "int"}}}}`, `{"a": [1, "x"]}`, false},
		{`{"properties": {"a": {"items": [{"bsonType": "int"}], "additionalItems": false}}}`, `{"a": [1, 2]}`, false},
		{`{"properties": {"a": {"items": [{"bsonType": "int"}], "additionalItems": {"bsonType": "string"}}}}`, `{"a": [1, "x"]}`, true},
		{`{"properties": {"a": {"minItems": 1, "maxItems": 2}}}`, `{"a": []}`, false},
		{`{"properties": {"a": {"uniqueItems": true}}}`, `{"a": [1, 2, 1.0]}`, false},
		{`{"properties": {"a": {"uniqueItems": true}}}`, `{"a": [1, "1"]}`, true},
		{`{"allOf": [{"required": ["a"]}, {"required": ["b"]}]}`, `{"a": 1}`, false},
		{`{"anyOf": [{"required": ["a"]}, {"required": ["b"]}]}`, `{"b": 1}`, true},
		{`{"oneOf": [{"required": ["a"]}, {"required": ["b"]}]}`, `{"a": 1, "b": 1}`, false},
		{`{"oneOf": [{"required": ["a"]}, {"required": ["b"]}]}`, `{"a": 1}`, true},
		{`{"not": {"required": ["a"]}}`, `{"a": 1}`, false},
		{`{"dependencies": {"a": ["b"]}}`, `{"a": 1}`, false},
		{`{"dependencies": {"a": ["b"]}}`, `{"c": 1}`, true},
		{`{"dependencies": {"a": {"required": ["c"]}}}`, `{"a": 1, "c": 2}`, true},
		{`{"title": "t", "description": "d", "properties": {"a": {"properties": {"b": {"bsonType": "int"}}}}}`, `{"a": {"b": "x"}}`, false},
	}
	for _, c := range cases {
		m, err := Compile(bson.D{{Key: "$jsonSchema", Value: mustDoc(t, c.schema)}})
		if err != nil {
			t.Fatalf("%s: %v", c.schema, err)
		}
		if got := m.Match(mustDoc(t, c.doc)); got != c.want {
			t.Errorf("schema %s doc %s: match = %v, want %v", c.schema, c.doc, got, c.want)
		}
		var det []bson.D
		s, _ := parseJSONSchema(mustDoc(t, c.schema))
		if ok := s.eval(mustDoc(t, c.doc), &det); ok != c.want || (len(det) == 0) != c.want {
			t.Errorf("schema %s doc %s: eval with details = %v, %v", c.schema, c.doc, ok, det)
		}
	}
}

func TestJSONSchemaParseErrors(t *testing.T) {
	cases := []struct {
		schema string
		code   mongoerr.Code
	}{
		{`{"bogus": 1}`, mongoerr.FailedToParse},
		{`{"format": "email"}`, mongoerr.FailedToParse},
		{`{"$ref": "#/x"}`, mongoerr.FailedToParse},
		{`{"type": "object", "bsonType": "object"}`, mongoerr.FailedToParse},
		{`{"type": "integer"}`, mongoerr.BadValue},
		{`{"bsonType": "nope"}`, mongoerr.BadValue},
		{`{"bsonType": 3}`, mongoerr.TypeMismatch},
		{`{"required": []}`, mongoerr.BadValue},
		{`{"required": ["a", "a"]}`, mongoerr.FailedToParse},
		{`{"required": "a"}`, mongoerr.TypeMismatch},
		{`{"properties": 1}`, mongoerr.TypeMismatch},
		{`{"properties": {"a": 1}}`, mongoerr.TypeMismatch},
		{`{"minimum": "x"}`, mongoerr.TypeMismatch},
		{`{"exclusiveMinimum": true}`, mongoerr.FailedToParse},
		{`{"minLength": -1}`, mongoerr.FailedToParse},
		{`{"minLength": 1.5}`, mongoerr.FailedToParse},
		{`{"enum": []}`, mongoerr.FailedToParse},
		{`{"enum": [1, 1]}`, mongoerr.FailedToParse},
		{`{"anyOf": []}`, mongoerr.BadValue},
		{`{"anyOf": [1]}`, mongoerr.TypeMismatch},
		{`{"items": 1}`, mongoerr.TypeMismatch},
		{`{"additionalProperties": 1}`, mongoerr.TypeMismatch},
		{`{"pattern": "(?<=a)b"}`, mongoerr.RegexMatchInvalid},
		{`{"title": 1}`, mongoerr.TypeMismatch},
	}
	for _, c := range cases {
		_, err := Compile(bson.D{{Key: "$jsonSchema", Value: mustDoc(t, c.schema)}})
		if !mongoerr.Is(err, c.code) {
			t.Errorf("%s: err = %v, want code %d", c.schema, err, c.code)
		}
	}
	if _, err := Compile(bson.D{{Key: "$jsonSchema", Value: int32(1)}}); !mongoerr.Is(err, mongoerr.TypeMismatch) {
		t.Errorf("$jsonSchema: 1 err = %v", err)
	}
}

func TestValidationDetails(t *testing.T) {
	schema := `{"$jsonSchema": {"required": ["name", "price"], "properties": {"price": {"bsonType": "number", "minimum": 0, "description": "p"}}}}`
	got := ValidationDetails(mustDoc(t, schema), mustDoc(t, `{"_id": 1, "price": -2}`))
	want := mustDoc(t, `{"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
		{"operatorName": "required", "specifiedAs": {"required": ["name", "price"]}, "missingProperties": ["name"]},
		{"operatorName": "properties", "propertiesNotSatisfied": [{"propertyName": "price", "description": "p", "details": [
			{"operatorName": "minimum", "specifiedAs": {"minimum": 0}, "reason": "comparison failed", "consideredValue": -2}]}]}]}`)
	if !sameExtJSON(t, got, want) {
		t.Errorf("details\n got %v\nwant %v", got, want)
	}
	got = ValidationDetails(mustDoc(t, `{"a": {"$gt": 5}, "b": 1}`), mustDoc(t, `{"a": 3, "b": 1}`))
	want = mustDoc(t, `{"operatorName": "$and", "clausesNotSatisfied": [{"index": 0, "details":
		{"operatorName": "$gt", "specifiedAs": {"a": {"$gt": 5}}, "reason": "comparison failed", "consideredValue": 3}}]}`)
	if !sameExtJSON(t, got, want) {
		t.Errorf("details\n got %v\nwant %v", got, want)
	}
}

func sameExtJSON(t *testing.T, a, b bson.D) bool {
	x, err1 := bson.MarshalExtJSON(a, true, false)
	y, err2 := bson.MarshalExtJSON(b, true, false)
	if err1 != nil || err2 != nil {
		t.Fatalf("marshal: %v %v", err1, err2)
	}
	return string(x) == string(y)
}
