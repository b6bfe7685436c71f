package query

import (
	"testing"
)

type matchCase struct {
	filter string
	doc    string
	want   bool
}

func runMatchCases(t *testing.T, cases []matchCase) {
	t.Helper()
	for _, c := range cases {
		m, err := Compile(mustDoc(t, c.filter))
		if err != nil {
			t.Errorf("Compile(%s): %v", c.filter, err)
			continue
		}
		if got := m.Match(mustDoc(t, c.doc)); got != c.want {
			t.Errorf("filter %s doc %s: got %v, want %v", c.filter, c.doc, got, c.want)
		}
	}
}

func TestMatchEquality(t *testing.T) {
	runMatchCases(t, []matchCase{
		{`{}`, `{"a": 1}`, true},
		{`{"a": 1}`, `{"a": 1}`, true},
		{`{"a": 1}`, `{"a": 1.0}`, true},
		{`{"a": 1}`, `{"a": {"$numberLong": "1"}}`, true},
		{`{"a": 1}`, `{"a": {"$numberDecimal": "1.0"}}`, true},
		{`{"a": 1}`, `{"a": 2}`, false},
		{`{"a": 1}`, `{"a": "1"}`, false},
		{`{"a": 1}`, `{"b": 1}`, false},
		{`{"a": {"$eq": 1}}`, `{"a": [3, 1]}`, true},
		{`{"a": 1}`, `{"a": [[1]]}`, false},
		{`{"a": [1, 2]}`, `{"a": [1, 2]}`, true},
		{`{"a": [1, 2]}`, `{"a": [2, 1]}`, false},
		{`{"a": [1, 2]}`, `{"a": [[1, 2], 3]}`, true},
		{`{"a": [1, 2]}`, `{"a": [1, 2, 3]}`, false},
		{`{"a": []}`, `{"a": []}`, true},
		{`{"a": []}`, `{"a": [[]]}`, true},
		{`{"a": {"b": 1, "c": 2}}`, `{"a": {"b": 1, "c": 2}}`, true},
		{`{"a": {"b": 1, "c": 2}}`, `{"a": {"c": 2, "b": 1}}`, false},
		{`{"a": {"b": 1}}`, `{"a": [{"b": 1}]}`, true},
		{`{"a.b": 1}`, `{"a": {"b": 1}}`, true},
		{`{"a.b": 1}`, `{"a": [{"b": 2}, {"b": 1}]}`, true},
		{`{"a.b": 1}`, `{"a": [{"b": [0, 1]}]}`, true},
		{`{"a.b": 1}`, `{"a": [[{"b": 1}]]}`, false},
		{`{"a.b.c": 1}`, `{"a": [{"b": [{"c": 1}]}]}`, true},
		{`{"a.0": 1}`, `{"a": [1, 2]}`, true},
		{`{"a.1": 1}`, `{"a": [1, 2]}`, false},
		{`{"a.0": 1}`, `{"a": {"0": 1}}`, true},
		{`{"a.0.b": 1}`, `{"a": [{"b": 1}]}`, true},
		{`{"a.0.b": 1}`, `{"a": [{"b": 2}, {"b": 1}]}`, false},
		{`{"a.1": 5}`, `{"a": [{"1": 5}, 3]}`, true},
		{`{"a.0": 1}`, `{"a": [[1, 2]]}`, true},
		{`{"a.00": 1}`, `{"a": [1]}`, false},
		{`{"a": "x"}`, `{"a": {"$symbol": "x"}}`, true},
		{`{"a": {"$regularExpression": {"pattern": "^x", "options": ""}}}`, `{"a": "xy"}`, true},
		{`{"a": {"$eq": {"$regularExpression": {"pattern": "^x", "options": ""}}}}`, `{"a": "xy"}`, false},
		{`{"a": {"$eq": {"$regularExpression": {"pattern": "^x", "options": ""}}}}`, `{"a": {"$regularExpression": {"pattern": "^x", "options": ""}}}`, true},
		{`{"a": {"$minKey": 1}}`, `{"a": {"$minKey": 1}}`, true},
		{`{"a": {"$numberDouble": "NaN"}}`, `{"a": {"$numberDouble": "NaN"}}`, true},
		{`{"a": {"$ref": "c", "$id": 1}}`, `{"a": {"$ref": "c", "$id": 1}}`, true},
		{`{"a": 1, "b": 2}`, `{"a": 1, "b": 2}`, true},
		{`{"a": 1, "b": 2}`, `{"a": 1, "b": 3}`, false},
	})
}

func TestMatchNull(t *testing.T) {
	runMatchCases(t, []matchCase{
		{`{"a": null}`, `{"a": null}`, true},
		{`{"a": null}`, `{}`, true},
		{`{"a": null}`, `{"a": {"$undefined": true}}`, true},
		{`{"a": null}`, `{"a": 0}`, false},
		{`{"a": null}`, `{"a": [1, null]}`, true},
		{`{"a": null}`, `{"a": [1]}`, false},
		{`{"a": null}`, `{"a": []}`, false},
		{`{"a.b": null}`, `{"a": 1}`, true},
		{`{"a.b": null}`, `{"a": {}}`, true},
		{`{"a.b": null}`, `{"a": [{"b": 1}, {"c": 1}]}`, true},
		{`{"a.b": null}`, `{"a": [{"b": 1}]}`, false},
		{`{"a.b": null}`, `{"a": [1, 2]}`, false},
		{`{"a.b": null}`, `{"a": []}`, false},
		{`{"a": {"$ne": null}}`, `{}`, false},
		{`{"a": {"$ne": null}}`, `{"a": 1}`, true},
		{`{"a": {"$gte": null}}`, `{}`, true},
		{`{"a": {"$lte": null}}`, `{"a": null}`, true},
		{`{"a": {"$gt": null}}`, `{"a": null}`, false},
		{`{"a": {"$lt": null}}`, `{}`, false},
		{`{"a": {"$in": [null]}}`, `{}`, true},
		{`{"a": {"$in": [null]}}`, `{"a": {"$undefined": true}}`, true},
		{`{"a": {"$nin": [null]}}`, `{}`, false},
		{`{"a": {"$nin": [null]}}`, `{"a": 2}`, true},
	})
}

func TestMatchComparison(t *testing.T) {
	runMatchCases(t, []matchCase{
		{`{"a": {"$gt": 1}}`, `{"a": 2}`, true},
		{`{"a": {"$gt": 1}}`, `{"a": 1}`, false},
		{`{"a": {"$gte": 1}}`, `{"a": 1.0}`, true},
		{`{"a": {"$lt": 1}}`, `{"a": 0.5}`, true},
		{`{"a": {"$lte": 1}}`, `{"a": 2}`, false},
		{`{"a": {"$gt": 1}}`, `{"a": "2"}`, false},
		{`{"a": {"$lt": "b"}}`, `{"a": 1}`, false},
		{`{"a": {"$lt": "b"}}`, `{"a": "a"}`, true},
		{`{"a": {"$gt": 1}}`, `{"a": [0, 5]}`, true},
		{`{"a": {"$gt": 1, "$lt": 3}}`, `{"a": [0, 5]}`, true},
		{`{"a": {"$elemMatch": {"$gt": 1, "$lt": 3}}}`, `{"a": [0, 5]}`, false},
		{`{"a": {"$elemMatch": {"$gt": 1, "$lt": 3}}}`, `{"a": [0, 2]}`, true},
		{`{"a": {"$gt": 1}}`, `{}`, false},
		{`{"a": {"$gt": {"$minKey": 1}}}`, `{"a": "x"}`, true},
		{`{"a": {"$gt": {"$minKey": 1}}}`, `{"a": null}`, true},
		{`{"a": {"$lt": {"$maxKey": 1}}}`, `{"a": {"b": 1}}`, true},
		{`{"a": {"$gt": {"$maxKey": 1}}}`, `{"a": 1}`, false},
		{`{"a": {"$gte": {"$minKey": 1}}}`, `{}`, false},
		{`{"a": {"$gt": {"$numberDouble": "NaN"}}}`, `{"a": 1}`, false},
		{`{"a": {"$lt": 1}}`, `{"a": {"$numberDouble": "NaN"}}`, false},
		{`{"a": {"$gte": {"$numberDouble": "NaN"}}}`, `{"a": {"$numberDouble": "NaN"}}`, true},
		{`{"a": {"$gt": [1]}}`, `{"a": [2]}`, true},
		{`{"a": {"$gt": {"$date": "2020-01-01T00:00:00Z"}}}`, `{"a": {"$date": "2021-01-01T00:00:00Z"}}`, true},
		{`{"a": {"$gt": {"$date": "2020-01-01T00:00:00Z"}}}`, `{"a": 99999999999999}`, false},
		{`{"a": {"$gt": {"b": 1}}}`, `{"a": {"b": 2}}`, true},
		{`{"a": {"$ne": 1}}`, `{"a": 2}`, true},
		{`{"a": {"$ne": 1}}`, `{"a": [1, 2]}`, false},
		{`{"a": {"$ne": 1}}`, `{}`, true},
		{`{"a.b": {"$ne": 1}}`, `{"a": [{"b": 1}, {"b": 2}]}`, false},
		{`{"a": {"$ne": [1, 2]}}`, `{"a": [1, 2]}`, false},
		{`{"a": {"$eq": null, "$ne": null}}`, `{}`, false},
	})
}

func TestMatchIn(t *testing.T) {
	runMatchCases(t, []matchCase{
		{`{"a": {"$in": [1, 2]}}`, `{"a": 2}`, true},
		{`{"a": {"$in": [1, 2]}}`, `{"a": 3}`, false},
		{`{"a": {"$in": [1, 2]}}`, `{"a": [3, 2]}`, true},
		{`{"a": {"$in": []}}`, `{"a": 1}`, false},
		{`{"a": {"$in": [[1, 2]]}}`, `{"a": [1, 2]}`, true},
		{`{"a": {"$in": [{"$regularExpression": {"pattern": "^ab", "options": ""}}, 5]}}`, `{"a": "abc"}`, true},
		{`{"a": {"$in": [{"$regularExpression": {"pattern": "^ab", "options": "i"}}]}}`, `{"a": "ABC"}`, true},
		{`{"a": {"$in": [{"$regularExpression": {"pattern": "^ab", "options": ""}}]}}`, `{"a": "xab"}`, false},
		{`{"a": {"$nin": [1, 2]}}`, `{"a": 3}`, true},
		{`{"a": {"$nin": [1, 2]}}`, `{"a": [3, 1]}`, false},
		{`{"a": {"$nin": [1, 2]}}`, `{}`, true},
		{`{"a.b": {"$in": [1]}}`, `{"a": [{"b": 3}, {"b": 1}]}`, true},
		{`{"a": {"$in": [{"b": 1}]}}`, `{"a": {"b": 1}}`, true},
	})
}

func TestMatchLogical(t *testing.T) {
	runMatchCases(t, []matchCase{
		{`{"$and": [{"a": 1}, {"b": 2}]}`, `{"a": 1, "b": 2}`, true},
		{`{"$and": [{"a": 1}, {"b": 2}]}`, `{"a": 1, "b": 3}`, false},
		{`{"$or": [{"a": 1}, {"b": 2}]}`, `{"a": 0, "b": 2}`, true},
		{`{"$or": [{"a": 1}, {"b": 2}]}`, `{"a": 0, "b": 0}`, false},
		{`{"$nor": [{"a": 1}, {"b": 2}]}`, `{"a": 0, "b": 0}`, true},
		{`{"$nor": [{"a": 1}, {"b": 2}]}`, `{"a": 1}`, false},
		{`{"$nor": [{"a": 1}]}`, `{}`, true},
		{`{"a": {"$not": {"$gt": 1}}}`, `{"a": 0}`, true},
		{`{"a": {"$not": {"$gt": 1}}}`, `{"a": 2}`, false},
		{`{"a": {"$not": {"$gt": 1}}}`, `{}`, true},
		{`{"a": {"$not": {"$gt": 1}}}`, `{"a": "x"}`, true},
		{`{"a": {"$not": {"$gt": 1, "$lt": 5}}}`, `{"a": 3}`, false},
		{`{"a": {"$not": {"$gt": 1, "$lt": 5}}}`, `{"a": 7}`, true},
		{`{"a": {"$not": {"$regularExpression": {"pattern": "^x", "options": ""}}}}`, `{"a": "y"}`, true},
		{`{"a": {"$not": {"$regex": "^x"}}}`, `{"a": "xy"}`, false},
		{`{"a": {"$not": {"$size": 2}}}`, `{"a": [1, 2]}`, false},
		{`{"$alwaysTrue": 1}`, `{}`, true},
		{`{"$alwaysFalse": 1}`, `{}`, false},
		{`{"a": 1, "$comment": "hi"}`, `{"a": 1}`, true},
		{`{"$and": [{"$or": [{"a": 1}, {"a": 2}]}, {"$or": [{"b": 1}, {"b": 2}]}]}`, `{"a": 2, "b": 1}`, true},
	})
}

func TestMatchExistsType(t *testing.T) {
	runMatchCases(t, []matchCase{
		{`{"a": {"$exists": true}}`, `{"a": null}`, true},
		{`{"a": {"$exists": true}}`, `{}`, false},
		{`{"a": {"$exists": false}}`, `{}`, true},
		{`{"a": {"$exists": 0}}`, `{"a": 1}`, false},
		{`{"a": {"$exists": 1}}`, `{"a": 1}`, true},
		{`{"a.b": {"$exists": true}}`, `{"a": [{"c": 1}, {"b": 1}]}`, true},
		{`{"a.b": {"$exists": false}}`, `{"a": [{"c": 1}, {"b": 1}]}`, false},
		{`{"a.b": {"$exists": false}}`, `{"a": [1, 2]}`, true},
		{`{"a.1": {"$exists": true}}`, `{"a": [1, 2]}`, true},
		{`{"a.2": {"$exists": true}}`, `{"a": [1, 2]}`, false},
		{`{"a": {"$exists": true}}`, `{"a": []}`, true},
		{`{"a": {"$type": "string"}}`, `{"a": "x"}`, true},
		{`{"a": {"$type": 2}}`, `{"a": "x"}`, true},
		{`{"a": {"$type": 2.0}}`, `{"a": 1}`, false},
		{`{"a": {"$type": "number"}}`, `{"a": {"$numberLong": "5"}}`, true},
		{`{"a": {"$type": "number"}}`, `{"a": "5"}`, false},
		{`{"a": {"$type": "int"}}`, `{"a": 5}`, true},
		{`{"a": {"$type": "double"}}`, `{"a": 5}`, false},
		{`{"a": {"$type": "long"}}`, `{"a": {"$numberLong": "5"}}`, true},
		{`{"a": {"$type": "decimal"}}`, `{"a": {"$numberDecimal": "5"}}`, true},
		{`{"a": {"$type": "array"}}`, `{"a": []}`, true},
		{`{"a": {"$type": "array"}}`, `{"a": [1]}`, true},
		{`{"a": {"$type": 4}}`, `{"a": {"b": 1}}`, false},
		{`{"a": {"$type": "string"}}`, `{"a": [1, "x"]}`, true},
		{`{"a": {"$type": ["string", "bool"]}}`, `{"a": true}`, true},
		{`{"a": {"$type": ["string", "bool"]}}`, `{"a": 1}`, false},
		{`{"a": {"$type": "null"}}`, `{"a": null}`, true},
		{`{"a": {"$type": "null"}}`, `{}`, false},
		{`{"a": {"$type": "minKey"}}`, `{"a": {"$minKey": 1}}`, true},
		{`{"a": {"$type": -1}}`, `{"a": {"$minKey": 1}}`, true},
		{`{"a": {"$type": 127}}`, `{"a": {"$maxKey": 1}}`, true},
		{`{"a": {"$type": "object"}}`, `{"a": {"b": 1}}`, true},
		{`{"a": {"$type": "objectId"}}`, `{"a": {"$oid": "000000000000000000000001"}}`, true},
		{`{"a": {"$type": "date"}}`, `{"a": {"$date": "2020-01-01T00:00:00Z"}}`, true},
		{`{"a": {"$type": "binData"}}`, `{"a": {"$binary": {"base64": "AA==", "subType": "00"}}}`, true},
		{`{"a": {"$type": "timestamp"}}`, `{"a": {"$timestamp": {"t": 1, "i": 1}}}`, true},
	})
}

func TestMatchRegex(t *testing.T) {
	runMatchCases(t, []matchCase{
		{`{"a": {"$regex": "^ab"}}`, `{"a": "abc"}`, true},
		{`{"a": {"$regex": "^ab"}}`, `{"a": "cab"}`, false},
		{`{"a": {"$regex": "^ab", "$options": "i"}}`, `{"a": "ABc"}`, true},
		{`{"a": {"$options": "i", "$regex": "^ab"}}`, `{"a": "ABc"}`, true},
		{`{"a": {"$regex": {"$regularExpression": {"pattern": "^ab", "options": "i"}}}}`, `{"a": "ABc"}`, true},
		{`{"a": {"$regex": "^b", "$options": "m"}}`, `{"a": "a\nb"}`, true},
		{`{"a": {"$regex": "^b"}}`, `{"a": "a\nb"}`, false},
		{`{"a": {"$regex": "a.b", "$options": "s"}}`, `{"a": "a\nb"}`, true},
		{`{"a": {"$regex": "a.b"}}`, `{"a": "a\nb"}`, false},
		{`{"a": {"$regex": "a b # comment\n c", "$options": "x"}}`, `{"a": "abc"}`, true},
		{`{"a": {"$regex": "a[ ]b", "$options": "x"}}`, `{"a": "a b"}`, true},
		{`{"a": {"$regex": "^ab"}}`, `{"a": ["x", "abz"]}`, true},
		{`{"a": {"$regex": "^1"}}`, `{"a": 1}`, false},
		{`{"a": {"$regex": "^ab"}}`, `{"a": {"$symbol": "abc"}}`, true},
		{`{"a": {"$regex": "^ab"}}`, `{"a": {"$regularExpression": {"pattern": "^ab", "options": ""}}}`, true},
		{`{"a": {"$regex": "^ab"}}`, `{"a": {"$regularExpression": {"pattern": "^ab", "options": "i"}}}`, false},
		{`{"a": {"$regularExpression": {"pattern": "é", "options": ""}}}`, `{"a": "café"}`, true},
	})
}

func TestMatchArrayOps(t *testing.T) {
	runMatchCases(t, []matchCase{
		{`{"a": {"$size": 2}}`, `{"a": [1, 2]}`, true},
		{`{"a": {"$size": 1}}`, `{"a": [1, 2]}`, false},
		{`{"a": {"$size": 0}}`, `{"a": []}`, true},
		{`{"a": {"$size": 0}}`, `{}`, false},
		{`{"a": {"$size": 1}}`, `{"a": [[1, 2]]}`, true},
		{`{"a": {"$size": 2}}`, `{"a": [[1, 2]]}`, false},
		{`{"a.b": {"$size": 1}}`, `{"a": [{"b": [1]}, {"b": 2}]}`, true},
		{`{"a": {"$all": [1, 2]}}`, `{"a": [2, 3, 1]}`, true},
		{`{"a": {"$all": [1, 2]}}`, `{"a": [2, 3]}`, false},
		{`{"a": {"$all": [1]}}`, `{"a": 1}`, true},
		{`{"a": {"$all": []}}`, `{"a": []}`, false},
		{`{"a": {"$all": [[1, 2]]}}`, `{"a": [1, 2]}`, true},
		{`{"a": {"$all": [[1, 2]]}}`, `{"a": [[1, 2], 3]}`, true},
		{`{"a": {"$all": [{"$regularExpression": {"pattern": "^x", "options": ""}}, "yy"]}}`, `{"a": ["xa", "yy"]}`, true},
		{`{"a": {"$all": [{"$elemMatch": {"b": 1}}, {"$elemMatch": {"c": 2}}]}}`, `{"a": [{"b": 1}, {"c": 2}]}`, true},
		{`{"a": {"$all": [{"$elemMatch": {"b": 1, "c": 2}}]}}`, `{"a": [{"b": 1}, {"c": 2}]}`, false},
		{`{"a": {"$elemMatch": {"b": 1, "c": 2}}}`, `{"a": [{"b": 1, "c": 2}]}`, true},
		{`{"a": {"$elemMatch": {"b": 1, "c": 2}}}`, `{"a": [{"b": 1}, {"c": 2}]}`, false},
		{`{"a": {"$elemMatch": {"b": 1}}}`, `{"a": {"b": 1}}`, false},
		{`{"a": {"$elemMatch": {"$eq": 1}}}`, `{"a": [2, 1]}`, true},
		{`{"a": {"$elemMatch": {"$ne": 1}}}`, `{"a": [1, 1]}`, false},
		{`{"a": {"$elemMatch": {"$ne": 1}}}`, `{"a": [1, 2]}`, true},
		{`{"a": {"$elemMatch": {"$gte": 2, "$lt": 3}}}`, `{"a": [[2], 5]}`, false},
		{`{"a": {"$elemMatch": {"$size": 2}}}`, `{"a": [[1, 2]]}`, true},
		{`{"a": {"$elemMatch": {"$elemMatch": {"$gt": 5}}}}`, `{"a": [[1, 6]]}`, true},
		{`{"a": {"$elemMatch": {"$or": [{"b": 1}, {"c": 1}]}}}`, `{"a": [{"c": 1}]}`, true},
		{`{"a": {"$elemMatch": {"b.c": {"$gt": 1}}}}`, `{"a": [{"b": [{"c": 0}, {"c": 2}]}]}`, true},
		{`{"a": {"$elemMatch": {"0": 1}}}`, `{"a": [[1, 2]]}`, true},
		{`{"a.b": {"$elemMatch": {"$gt": 1}}}`, `{"a": [{"b": [0]}, {"b": [2]}]}`, true},
		{`{"a": {"$elemMatch": {"b": {"$exists": false}}}}`, `{"a": [{"b": 1}, {"c": 1}]}`, true},
	})
}

func TestMatchModBits(t *testing.T) {
	runMatchCases(t, []matchCase{
		{`{"a": {"$mod": [4, 0]}}`, `{"a": 8}`, true},
		{`{"a": {"$mod": [4, 1]}}`, `{"a": 8}`, false},
		{`{"a": {"$mod": [4, 1]}}`, `{"a": 9.7}`, true},
		{`{"a": {"$mod": [4, -1]}}`, `{"a": -5}`, true},
		{`{"a": {"$mod": [4, 0]}}`, `{"a": "8"}`, false},
		{`{"a": {"$mod": [4, 0]}}`, `{"a": [3, 8]}`, true},
		{`{"a": {"$mod": [4.5, 0]}}`, `{"a": 8}`, true},
		{`{"a": {"$mod": [4, 0]}}`, `{"a": {"$numberDouble": "NaN"}}`, false},
		{`{"a": {"$bitsAllSet": 5}}`, `{"a": 7}`, true},
		{`{"a": {"$bitsAllSet": 5}}`, `{"a": 6}`, false},
		{`{"a": {"$bitsAllSet": [0, 2]}}`, `{"a": 5}`, true},
		{`{"a": {"$bitsAllClear": 5}}`, `{"a": 10}`, true},
		{`{"a": {"$bitsAllClear": 5}}`, `{"a": 11}`, false},
		{`{"a": {"$bitsAnySet": 5}}`, `{"a": 4}`, true},
		{`{"a": {"$bitsAnySet": 5}}`, `{"a": 2}`, false},
		{`{"a": {"$bitsAnyClear": 5}}`, `{"a": 4}`, true},
		{`{"a": {"$bitsAnyClear": 5}}`, `{"a": 5}`, false},
		{`{"a": {"$bitsAllSet": [70]}}`, `{"a": -1}`, true},
		{`{"a": {"$bitsAllSet": [70]}}`, `{"a": 1}`, false},
		{`{"a": {"$bitsAllSet": 1}}`, `{"a": 1.5}`, false},
		{`{"a": {"$bitsAllSet": 1}}`, `{"a": 3.0}`, true},
		{`{"a": {"$bitsAllSet": 1}}`, `{"a": "1"}`, false},
		{`{"a": {"$bitsAllSet": {"$binary": {"base64": "Aw==", "subType": "00"}}}}`, `{"a": 3}`, true},
		{`{"a": {"$bitsAllSet": [0, 9]}}`, `{"a": {"$binary": {"base64": "AQI=", "subType": "00"}}}`, true},
		{`{"a": {"$bitsAnySet": [16]}}`, `{"a": {"$binary": {"base64": "AQI=", "subType": "00"}}}`, false},
		{`{"a": {"$bitsAllSet": []}}`, `{"a": 0}`, true},
	})
}

func TestMatchExpr(t *testing.T) {
	runMatchCases(t, []matchCase{
		{`{"$expr": {"$gt": ["$a", "$b"]}}`, `{"a": 3, "b": 2}`, true},
		{`{"$expr": {"$gt": ["$a", "$b"]}}`, `{"a": 1, "b": 2}`, false},
		{`{"$expr": {"$eq": ["$a", 1]}, "b": 2}`, `{"a": 1, "b": 2}`, true},
		{`{"$expr": "$a"}`, `{"a": 0}`, false},
		{`{"$expr": "$a"}`, `{"a": "x"}`, true},
		{`{"$expr": true}`, `{}`, true},
	})
}
