package query

import (
	"testing"
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
