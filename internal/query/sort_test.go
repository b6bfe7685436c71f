package query

import (
	"sort"
	"testing"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestSortOrder(t *testing.T) {
	cases := []struct {
		spec string
		docs []string // input, in the expected sorted order
	}{
		{`{"a": 1}`, []string{`{"a": []}`, `{"a": null}`, `{"a": 1}`, `{"a": 2.5}`, `{"a": "x"}`, `{"a": {"b": 1}}`}},
		{`{"a": -1}`, []string{`{"a": "x"}`, `{"a": 2.5}`, `{"a": 1}`, `{}`, `{"a": []}`}},
		{`{"a": 1}`, []string{`{"a": [0, 10]}`, `{"a": 1}`, `{"a": [5, 2]}`, `{"a": 3}`}},
		{`{"a": -1}`, []string{`{"a": [0, 10]}`, `{"a": [9, 2]}`, `{"a": 3}`, `{"a": 1}`}},
		{`{"a.b": 1}`, []string{`{"a": [{"b": 1}, {"c": 1}]}`, `{"a": [{"b": 0}, {"b": 5}]}`, `{"a": {"b": 3}}`}},
		{`{"a": 1, "b": -1}`, []string{`{"a": 1, "b": 3}`, `{"a": 1, "b": 2}`, `{"a": 2, "b": 9}`}},
		{`{"a": 1}`, []string{`{"a": {"$minKey": 1}}`, `{"a": []}`, `{"a": null}`, `{"a": {"$maxKey": 1}}`}},
		{`{"a": 1}`, []string{`{"a": [[5], 1]}`, `{"a": 2}`, `{"a": [[0]]}`}},
	}
	for _, c := range cases {
		s, err := CompileSort(mustDoc(t, c.spec))
		if err != nil {
			t.Fatalf("CompileSort(%s): %v", c.spec, err)
		}
		want := make([]bson.D, len(c.docs))
		for i, d := range c.docs {
			want[i] = mustDoc(t, d)
		}
		for i := 0; i+1 < len(want); i++ {
			if s.Compare(want[i], want[i+1]) >= 0 {
				t.Errorf("sort %s: %s should sort before %s", c.spec, c.docs[i], c.docs[i+1])
			}
			if s.Compare(want[i+1], want[i]) <= 0 {
				t.Errorf("sort %s: %s should sort after %s", c.spec, c.docs[i+1], c.docs[i])
			}
		}
		got := make([]bson.D, len(want))
		for i := range want {
			got[i] = want[len(want)-1-i]
		}
		sort.SliceStable(got, func(i, j int) bool { return s.Less(got[i], got[j]) })
		for i := range got {
			if bsonx.Compare(got[i], want[i]) != 0 {
				t.Errorf("sort %s: position %d got %v, want %v", c.spec, i, got[i], want[i])
			}
		}
	}
}

func TestSortFieldsAndErrors(t *testing.T) {
	s, err := CompileSort(mustDoc(t, `{"a": 1, "b.c": -1, "d": 1.0, "e": {"$numberLong": "-1"}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []SortField{{"a", false}, {"b.c", true}, {"d", false}, {"e", true}}
	got := s.Fields()
	if len(got) != len(want) {
		t.Fatalf("Fields() = %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Fields()[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	errs := []struct {
		spec string
		code mongoerr.Code
	}{
		{`{"a": 2}`, 15975},
		{`{"a": 0}`, 15975},
		{`{"a": "asc"}`, 15974},
		{`{"a": {"$meta": "textScore"}}`, mongoerr.NotImplemented},
		{`{"": 1}`, mongoerr.BadValue},
		{`{"a..b": 1}`, mongoerr.BadValue},
	}
	for _, c := range errs {
		if _, err := CompileSort(mustDoc(t, c.spec)); !mongoerr.Is(err, c.code) {
			t.Errorf("CompileSort(%s) = %v, want code %d", c.spec, err, c.code)
		}
	}
}
