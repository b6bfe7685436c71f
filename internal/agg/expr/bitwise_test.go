package expr

import "testing"

func TestBitwise(t *testing.T) {
	runExprCases(t, []exprCase{
		{expr: `{"$bitAnd": [12, 10]}`, want: `8`},
		{expr: `{"$bitOr": [12, 10]}`, want: `14`},
		{expr: `{"$bitXor": [12, 10]}`, want: `6`},
		{expr: `{"$bitAnd": [12, {"$numberLong": "10"}]}`, want: `{"$numberLong": "8"}`},
		{expr: `{"$bitOr": [{"$numberLong": "4294967296"}, 1]}`, want: `{"$numberLong": "4294967297"}`},
		{expr: `{"$bitAnd": []}`, want: `-1`},
		{expr: `{"$bitOr": []}`, want: `0`},
		{expr: `{"$bitXor": []}`, want: `0`},
		{expr: `{"$bitAnd": 7}`, want: `7`},
		{expr: `{"$bitAnd": ["$a", "$b"]}`, doc: `{"a": 6, "b": 3}`, want: `2`},
		{expr: `{"$bitAnd": [1, null]}`, want: `null`},
		{expr: `{"$bitOr": [1, "$nope"]}`, want: `null`},
		{expr: `{"$bitOr": [null, "x"]}`, want: `null`},
		{expr: `{"$bitOr": ["x", null]}`, code: 14},
		{expr: `{"$bitXor": [1, 1.0]}`, code: 14},
		{expr: `{"$bitAnd": [1, {"$numberDecimal": "1"}]}`, code: 14},
		{expr: `{"$bitNot": 5}`, want: `-6`},
		{expr: `{"$bitNot": [{"$numberLong": "0"}]}`, want: `{"$numberLong": "-1"}`},
		{expr: `{"$bitNot": null}`, want: `null`},
		{expr: `{"$bitNot": 1.5}`, code: 14},
		{expr: `{"$bitNot": [1, 2]}`, code: 16020},
	})
}
