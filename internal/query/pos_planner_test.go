package query

import (
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestMatchPos(t *testing.T) {
	cases := []struct {
		filter, doc string
		ok          bool
		pos         int
	}{
		{`{"a": 2}`, `{"a": [1, 2, 3]}`, true, 1},
		{`{"a": 2}`, `{"a": 2}`, true, -1},
		{`{"a.b": 5}`, `{"a": [{"b": 1}, {"b": 5}]}`, true, 1},
		{`{"a.b": 5}`, `{"a": [{"b": [1]}, {"b": [7, 5]}]}`, true, 1},
		{`{"a": {"$elemMatch": {"b": 5}}}`, `{"a": [{"b": 1}, {"b": 5}]}`, true, 1},
		{`{"a": {"$gt": 1}}`, `{"a": [0, 1, 3]}`, true, 2},
		{`{"a": {"$ne": 5}}`, `{"a": [1, 2]}`, true, -1},
		{`{"a": [1, 2]}`, `{"a": [1, 2]}`, true, -1},
		{`{"_id": 1, "a": 3}`, `{"_id": 1, "a": [1, 2, 3]}`, true, 2},
		{`{"$or": [{"a": 9}, {"b": 4}]}`, `{"a": [9], "b": [3, 4]}`, true, 0},
		{`{"$or": [{"a": 8}, {"b": 4}]}`, `{"a": [9], "b": [3, 4]}`, true, 1},
		{`{"a": 5}`, `{"a": [1]}`, false, -1},
	}
	for _, c := range cases {
		m, err := Compile(mustDoc(t, c.filter))
		if err != nil {
			t.Fatalf("Compile(%s): %v", c.filter, err)
		}
		ok, pos := m.MatchPos(mustDoc(t, c.doc))
		if ok != c.ok || pos != c.pos {
			t.Errorf("MatchPos(%s, %s) = %v, %d; want %v, %d", c.filter, c.doc, ok, pos, c.ok, c.pos)
		}
	}
}

func TestPredicates(t *testing.T) {
	m, err := Compile(mustDoc(t, `{"a": 1, "b": {"$gte": 2, "$lt": 9, "$ne": 4}, "$and": [{"c": {"$in": [1, 2]}}], "$or": [{"d": 1}, {"e": 1}], "f": {"$regularExpression": {"pattern": "x", "options": ""}}, "g": {"$in": [1, {"$regularExpression": {"pattern": "x", "options": ""}}]}, "h": [1, 2]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []Predicate{
		{Path: "a", Op: PredEq, Value: int32(1)},
		{Path: "b", Op: PredGte, Value: int32(2)},
		{Path: "b", Op: PredLt, Value: int32(9)},
		{Path: "c", Op: PredIn, Values: []any{int32(1), int32(2)}},
	}
	if got := m.Predicates(); !reflect.DeepEqual(got, want) {
		t.Errorf("Predicates() = %#v\nwant %#v", got, want)
	}
}

func TestIsIDEquality(t *testing.T) {
	cases := []struct {
		filter string
		id     any
		ok     bool
	}{
		{`{"_id": 5}`, int32(5), true},
		{`{"_id": {"$eq": "x"}}`, "x", true},
		{`{"_id": {"a": 1}}`, bson.D{{Key: "a", Value: int32(1)}}, true},
		{`{"_id": {"$gt": 5}}`, nil, false},
		{`{"_id": [1]}`, nil, false},
		{`{"_id": null}`, nil, false},
		{`{"_id": 5, "a": 1}`, nil, false},
		{`{"a": 5}`, nil, false},
		{`{"_id": {"$regularExpression": {"pattern": "x", "options": ""}}}`, nil, false},
	}
	for _, c := range cases {
		id, ok := IsIDEquality(mustDoc(t, c.filter))
		if ok != c.ok || !reflect.DeepEqual(id, c.id) {
			t.Errorf("IsIDEquality(%s) = %v, %v; want %v, %v", c.filter, id, ok, c.id, c.ok)
		}
	}
}
