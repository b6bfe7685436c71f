package expr

import "testing"

func TestCompileAndPaths(t *testing.T) {
	runExprCases(t, []exprCase{
		{expr: `"$a.b"`, doc: `{"a": {"b": 5}}`, want: `5`},
		{expr: `"$a.b"`, doc: `{"a": [{"b": 1}, {"c": 2}, 3, {"b": [4]}]}`, want: `[1, [4]]`},
		{expr: `"$a.0"`, doc: `{"a": [1, 2]}`, want: `[]`},
		{expr: `"$x"`, doc: `{"a": 1}`, want: `MISSING`},
		{expr: `"$$CURRENT.a"`, doc: `{"a": 1}`, want: `1`},
		{expr: `"$$ROOT"`, doc: `{"a": 1}`, want: `{"a": 1}`},
		{expr: `"$$REMOVE"`, want: `MISSING`},
		{expr: `"$$nope"`, code: 17276},
		{expr: `"$"`, code: 16872},
		{expr: `"$a..b"`, code: 15998},
		{expr: `{"$foo": 1}`, code: 168},
		{expr: `{"$add": [1], "$sub": 2}`, code: 15983},
		{expr: `{"x": "$a", "y": "$missing", "z": [1, "$missing"]}`, doc: `{"a": 1}`, want: `{"x": 1, "z": [1, null]}`},
		{expr: `{"x.y": 1}`, code: 16412},
		{expr: `{"$literal": "$a"}`, want: `"$a"`},
		{expr: `{"$literal": {"$add": 1}}`, want: `{"$add": 1}`},
		{expr: `"plain"`, want: `"plain"`},
	})
}

func TestLogic(t *testing.T) {
	runExprCases(t, []exprCase{
		{expr: `{"$eq": [1, 1.0]}`, want: `true`},
		{expr: `{"$eq": ["$x", null]}`, want: `false`},
		{expr: `{"$lt": ["$x", null]}`, want: `true`},
		{expr: `{"$gt": ["a", 5]}`, want: `true`},
		{expr: `{"$ne": [1, 2]}`, want: `true`},
		{expr: `{"$gte": [2, 2]}`, want: `true`},
		{expr: `{"$lte": [3, 2]}`, want: `false`},
		{expr: `{"$cmp": [1, 2]}`, want: `-1`},
		{expr: `{"$cmp": [[1], [1]]}`, want: `0`},
		{expr: `{"$eq": [1]}`, code: 16020},
		{expr: `{"$and": [1, "x", []]}`, want: `true`},
		{expr: `{"$and": [1, 0]}`, want: `false`},
		{expr: `{"$and": []}`, want: `true`},
		{expr: `{"$and": [false, {"$divide": [1, 0]}]}`, want: `false`},
		{expr: `{"$or": [null, "$x"]}`, want: `false`},
		{expr: `{"$or": [0, 2]}`, want: `true`},
		{expr: `{"$not": [0]}`, want: `true`},
		{expr: `{"$not": [[]]}`, want: `false`},
		{expr: `{"$cond": [true, 1, {"$divide": [1, 0]}]}`, want: `1`},
		{expr: `{"$cond": {"if": null, "then": 1, "else": 2}}`, want: `2`},
		{expr: `{"$cond": {"if": null, "then": 1}}`, code: 17082},
		{expr: `{"$cond": {"if": 1, "then": 1, "else": 2, "x": 1}}`, code: 17083},
		{expr: `{"$cond": [1, 2]}`, code: 16020},
		{expr: `{"$ifNull": ["$a", "d"]}`, want: `"d"`},
		{expr: `{"$ifNull": [null, "$b", 3]}`, doc: `{"b": 0}`, want: `0`},
		{expr: `{"$ifNull": [1]}`, code: 1257300},
		{expr: `{"$switch": {"branches": [{"case": {"$gt": ["$a", 5]}, "then": "big"}], "default": "small"}}`, doc: `{"a": 7}`, want: `"big"`},
		{expr: `{"$switch": {"branches": [{"case": false, "then": 1}], "default": 2}}`, want: `2`},
		{expr: `{"$switch": {"branches": [{"case": false, "then": 1}]}}`, code: 40066},
		{expr: `{"$switch": {"branches": []}}`, code: 40068},
		{expr: `{"$switch": {"branches": [{"case": 1}]}}`, code: 40065},
		{expr: `{"$let": {"vars": {"x": 2, "y": "$a"}, "in": {"$multiply": ["$$x", "$$y"]}}}`, doc: `{"a": 3}`, want: `6`},
		{expr: `{"$let": {"vars": {"x": {"a": [{"b": 1}]}}, "in": "$$x.a.b"}}`, want: `[1]`},
		{expr: `{"$let": {"vars": {"X": 1}, "in": 1}}`, code: 16867},
		{expr: `{"$let": {"vars": {"x": 1}}}`, code: 16877},
		{expr: `{"$let": {"vars": {"x": "$$y"}, "in": 1}}`, code: 17276},
	})
}

func TestCompileWithVars(t *testing.T) {
	e, err := CompileWithVars(ej(t, `{"$add": ["$$x", "$a"]}`), []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.Eval(ejDoc(t, `{"a": 1}`), (*Vars)(nil).Bind("x", int32(41)))
	if err != nil || got != int32(42) {
		t.Fatalf("got %v, %v", got, err)
	}
	if _, err := Compile(ej(t, `"$$x"`)); err == nil {
		t.Fatal("undefined variable compiled")
	}
}
