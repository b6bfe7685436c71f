package expr

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx/bsonhash"
)

func TestMiscOperators(t *testing.T) {
	runExprCases(t, []exprCase{
		{expr: `{"$zip": {"inputs": [[1, 2, 3], ["a", "b"]]}}`, want: `[[1, "a"], [2, "b"]]`},
		{expr: `{"$zip": {"inputs": [[1, 2, 3], ["a", "b"]], "useLongestLength": true}}`, want: `[[1, "a"], [2, "b"], [3, null]]`},
		{expr: `{"$zip": {"inputs": [[1, 2, 3], ["a"]], "useLongestLength": true, "defaults": [0, "z"]}}`, want: `[[1, "a"], [2, "z"], [3, "z"]]`},
		{expr: `{"$zip": {"inputs": ["$a", "$b"]}}`, doc: `{"a": [1], "b": [2]}`, want: `[[1, 2]]`},
		{expr: `{"$zip": {"inputs": [[1], []]}}`, want: `[]`},
		{expr: `{"$zip": {"inputs": [[1], null]}}`, want: `null`},
		{expr: `{"$zip": {"inputs": [[1], "$nope"]}}`, want: `null`},
		{expr: `{"$zip": [[1]]}`, code: 34460},
		{expr: `{"$zip": {"inputs": "$a"}}`, code: 34461},
		{expr: `{"$zip": {"inputs": [[1]], "useLongestLength": true, "defaults": 1}}`, code: 34462},
		{expr: `{"$zip": {"inputs": [[1]], "useLongestLength": 1}}`, code: 34463},
		{expr: `{"$zip": {"inputs": [[1]], "x": 1}}`, code: 34464},
		{expr: `{"$zip": {}}`, code: 34465},
		{expr: `{"$zip": {"inputs": [[1]], "defaults": [0]}}`, code: 34466},
		{expr: `{"$zip": {"inputs": [[1]], "useLongestLength": true, "defaults": [0, 1]}}`, code: 34467},
		{expr: `{"$zip": {"inputs": [[1], 5]}}`, code: 34468},
		{expr: `{"$binarySize": "abc"}`, want: `3`},
		{expr: `{"$binarySize": "é"}`, want: `2`},
		{expr: `{"$binarySize": {"$binary": {"base64": "AQID", "subType": "00"}}}`, want: `3`},
		{expr: `{"$binarySize": null}`, want: `null`},
		{expr: `{"$binarySize": "$nope"}`, want: `null`},
		{expr: `{"$binarySize": 1}`, code: 51276},
		{expr: `{"$bsonSize": {"$literal": {}}}`, want: `5`},
		{expr: `{"$bsonSize": "$$ROOT"}`, doc: `{"a": 1}`, want: `12`},
		{expr: `{"$bsonSize": null}`, want: `null`},
		{expr: `{"$bsonSize": "$nope"}`, want: `null`},
		{expr: `{"$bsonSize": [1, 2]}`, code: 16020},
		{expr: `{"$bsonSize": "x"}`, code: 31393},
		{expr: `{"$tsSecond": {"$timestamp": {"t": 1700000000, "i": 7}}}`, want: `{"$numberLong": "1700000000"}`},
		{expr: `{"$tsIncrement": {"$timestamp": {"t": 1700000000, "i": 7}}}`, want: `{"$numberLong": "7"}`},
		{expr: `{"$tsSecond": null}`, want: `null`},
		{expr: `{"$tsIncrement": "$nope"}`, want: `null`},
		{expr: `{"$tsSecond": 1}`, code: 5687301},
		{expr: `{"$tsIncrement": {"$date": "2020-01-01T00:00:00Z"}}`, code: 5687302},
	})
}

// TestToHashedIndexKey checks $toHashedIndexKey against bsonhash (whose
// own tests pin MongoDB's hash values) and a known mongod value.
func TestToHashedIndexKey(t *testing.T) {
	for _, c := range []struct {
		expr string
		doc  string
		in   any
	}{
		{`{"$toHashedIndexKey": 1}`, "", int32(1)},
		{`{"$toHashedIndexKey": "$a"}`, `{"a": "x"}`, "x"},
		{`{"$toHashedIndexKey": "$nope"}`, "", nil},
		{`{"$toHashedIndexKey": null}`, "", nil},
		{`{"$toHashedIndexKey": [1, 2]}`, "", bson.A{int32(1), int32(2)}},
	} {
		got, err := evalJSON(t, c.expr, c.doc)
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		want, err := bsonhash.Hash(c.in)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s = %v, want %v", c.expr, got, want)
		}
	}
	// mongod: db.aggregate([{$documents: [{}]}, {$project: {h: {$toHashedIndexKey: 1}}}]) → 5902408780260971510
	got, err := evalJSON(t, `{"$toHashedIndexKey": 1}`, "")
	if err != nil || got != int64(5902408780260971510) {
		t.Errorf("$toHashedIndexKey(1) = %v, %v", got, err)
	}
}
