package expr

import "testing"

func TestSetField(t *testing.T) {
	runExprCases(t, []exprCase{
		{expr: `{"$setField": {"field": "b", "input": "$$ROOT", "value": 2}}`, doc: `{"a": 1}`, want: `{"a": 1, "b": 2}`},
		{expr: `{"$setField": {"field": "a", "input": "$$ROOT", "value": 2}}`, doc: `{"a": 1, "c": 3}`, want: `{"a": 2, "c": 3}`},
		{expr: `{"$setField": {"field": {"$literal": "$a"}, "input": "$$ROOT", "value": ""}}`, doc: `{"_id": 1}`, want: `{"_id": 1, "$a": ""}`},
		{expr: `{"$setField": {"field": {"$const": "a.b"}, "input": {}, "value": "$x"}}`, doc: `{"x": 5}`, want: `{"a.b": 5}`},
		{expr: `{"$setField": {"field": "a.b", "input": "$sub", "value": true}}`, doc: `{"sub": {"c": 1}}`, want: `{"c": 1, "a.b": true}`},
		{expr: `{"$setField": {"field": "a", "input": "$$ROOT", "value": "$$REMOVE"}}`, doc: `{"a": 1, "b": 2}`, want: `{"b": 2}`},
		{expr: `{"$setField": {"field": "a", "input": "$nope", "value": 1}}`, want: `null`},
		{expr: `{"$setField": {"field": "a", "input": null, "value": 1}}`, want: `null`},
		{expr: `{"$setField": {"field": "a", "input": 5, "value": 1}}`, code: 4161105},
		{expr: `{"$setField": 1}`, code: 4161100},
		{expr: `{"$setField": {"field": "a", "input": {}, "value": 1, "x": 1}}`, code: 4161101},
		{expr: `{"$setField": {"input": {}, "value": 1}}`, code: 4161102},
		{expr: `{"$setField": {"field": "a", "input": {}}}`, code: 4161103},
		{expr: `{"$setField": {"field": "a", "value": 1}}`, code: 4161109},
		{expr: `{"$setField": {"field": {"$concat": ["a", "b"]}, "input": {}, "value": 1}}`, code: 4161106},
		{expr: `{"$setField": {"field": 5, "input": {}, "value": 1}}`, code: 4161107},
		{expr: `{"$setField": {"field": "$a", "input": {}, "value": 1}}`, code: 4161108},
		{expr: `{"$unsetField": {"field": "a", "input": "$$ROOT"}}`, doc: `{"a": 1, "b": 2}`, want: `{"b": 2}`},
		{expr: `{"$unsetField": {"field": {"$literal": "$a.b"}, "input": "$$ROOT"}}`, doc: `{"$a.b": 1}`, want: `{}`},
		{expr: `{"$unsetField": {"field": "z", "input": "$$ROOT"}}`, doc: `{"a": 1}`, want: `{"a": 1}`},
		{expr: `{"$unsetField": {"field": "a", "input": "$$ROOT", "value": 1}}`, code: 4161101},
	})
}

func TestSetFieldDoesNotMutateInput(t *testing.T) {
	doc := ejDoc(t, `{"a": 1, "b": 2}`)
	e, err := Compile(ej(t, `{"$setField": {"field": "a", "input": "$$CURRENT", "value": 9}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Eval(doc, nil); err != nil {
		t.Fatal(err)
	}
	if doc[0].Value != int32(1) {
		t.Fatalf("input mutated: %v", doc)
	}
}

func TestRand(t *testing.T) {
	runExprCases(t, []exprCase{
		{expr: `{"$rand": 1}`, code: 3040500},
		{expr: `{"$rand": {"a": 1}}`, code: 3040500},
		{expr: `{"$lt": [{"$rand": {}}, 1]}`, want: `true`},
		{expr: `{"$gte": [{"$rand": {}}, 0]}`, want: `true`},
	})
}
