package query

import (
	"testing"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestProjectionApply(t *testing.T) {
	const doc = `{"_id": 1, "a": 1, "b": {"c": 2, "d": 3}, "e": [{"f": 1, "g": 2}, {"f": 3}, 7, [{"f": 4, "g": 5}]], "h": [1, 2, 3, 4, 5]}`
	cases := []struct {
		spec string
		pos  int
		want string
	}{
		{`{}`, -1, doc},
		{`{"a": 1}`, -1, `{"_id": 1, "a": 1}`},
		{`{"a": true}`, -1, `{"_id": 1, "a": 1}`},
		{`{"a": 1, "_id": 0}`, -1, `{"a": 1}`},
		{`{"_id": 0}`, -1, `{"a": 1, "b": {"c": 2, "d": 3}, "e": [{"f": 1, "g": 2}, {"f": 3}, 7, [{"f": 4, "g": 5}]], "h": [1, 2, 3, 4, 5]}`},
		{`{"_id": 1}`, -1, `{"_id": 1}`},
		{`{"b.c": 1}`, -1, `{"_id": 1, "b": {"c": 2}}`},
		{`{"b": {"c": 1}}`, -1, `{"_id": 1, "b": {"c": 2}}`},
		{`{"b.x": 1}`, -1, `{"_id": 1, "b": {}}`},
		{`{"a.x": 1}`, -1, `{"_id": 1}`},
		{`{"e.f": 1}`, -1, `{"_id": 1, "e": [{"f": 1}, {"f": 3}, [{"f": 4}]]}`},
		{`{"h": 1, "a": 1}`, -1, `{"_id": 1, "a": 1, "h": [1, 2, 3, 4, 5]}`},
		{`{"a": 0}`, -1, `{"_id": 1, "b": {"c": 2, "d": 3}, "e": [{"f": 1, "g": 2}, {"f": 3}, 7, [{"f": 4, "g": 5}]], "h": [1, 2, 3, 4, 5]}`},
		{`{"b.c": 0, "e.g": 0, "h": 0, "a": 0, "_id": 0}`, -1, `{"b": {"d": 3}, "e": [{"f": 1}, {"f": 3}, 7, [{"f": 4}]]}`},
		{`{"h": {"$slice": 2}}`, -1, `{"_id": 1, "a": 1, "b": {"c": 2, "d": 3}, "e": [{"f": 1, "g": 2}, {"f": 3}, 7, [{"f": 4, "g": 5}]], "h": [1, 2]}`},
		{`{"h": {"$slice": -2}, "a": 1}`, -1, `{"_id": 1, "a": 1, "h": [4, 5]}`},
		{`{"h": {"$slice": [1, 2]}, "_id": 0, "a": 1}`, -1, `{"a": 1, "h": [2, 3]}`},
		{`{"h": {"$slice": [-2, 5]}, "_id": 0, "a": 1}`, -1, `{"a": 1, "h": [4, 5]}`},
		{`{"h": {"$slice": [10, 5]}, "_id": 0, "a": 1}`, -1, `{"a": 1, "h": []}`},
		{`{"h": {"$slice": -10}, "_id": 0, "a": 1}`, -1, `{"a": 1, "h": [1, 2, 3, 4, 5]}`},
		{`{"a": {"$slice": 1}, "_id": 0, "h": 0, "b": 0, "e": 0}`, -1, `{"a": 1}`},
		{`{"e": {"$elemMatch": {"f": 3}}}`, -1, `{"_id": 1, "e": [{"f": 3}]}`},
		{`{"e": {"$elemMatch": {"f": 3}}, "a": 1}`, -1, `{"_id": 1, "a": 1, "e": [{"f": 3}]}`},
		{`{"e": {"$elemMatch": {"f": 99}}}`, -1, `{"_id": 1}`},
		{`{"h": {"$elemMatch": {"$gt": 3}}, "_id": 0}`, -1, `{"h": [4]}`},
		{`{"h.$": 1}`, 2, `{"_id": 1, "h": [3]}`},
		{`{"e.$": 1, "_id": 0}`, 1, `{"e": [{"f": 3}]}`},
		{`{"x": "$a", "_id": 0}`, -1, `{"x": 1}`},
		{`{"x": {"$add": ["$a", "$b.c"]}, "a": 1}`, -1, `{"_id": 1, "a": 1, "x": 3}`},
		{`{"x": "lit", "_id": 0}`, -1, `{"x": "lit"}`},
		{`{"a": "$b.c", "_id": 0}`, -1, `{"a": 2}`},
		{`{"x": "$missing", "_id": 0}`, -1, `{}`},
		{`{"n.m": "$a", "_id": 0}`, -1, `{"n": {"m": 1}}`},
		{`{"b.z": "$a", "b.c": 1, "_id": 0}`, -1, `{"b": {"c": 2, "z": 1}}`},
	}
	for _, c := range cases {
		p, err := CompileProjection(mustDoc(t, c.spec))
		if err != nil {
			t.Errorf("CompileProjection(%s): %v", c.spec, err)
			continue
		}
		got, err := p.Apply(mustDoc(t, doc), c.pos)
		if err != nil {
			t.Errorf("Apply(%s): %v", c.spec, err)
			continue
		}
		if want := mustDoc(t, c.want); bsonx.Compare(got, want) != 0 || len(got) != len(want) {
			t.Errorf("projection %s:\n got %v\nwant %v", c.spec, got, want)
		}
	}
}

func TestProjectionPositionalWithMatch(t *testing.T) {
	m, err := Compile(mustDoc(t, `{"grades": {"$gte": 85}}`))
	if err != nil {
		t.Fatal(err)
	}
	doc := mustDoc(t, `{"_id": 1, "grades": [80, 85, 90]}`)
	ok, pos := m.MatchPos(doc)
	if !ok || pos != 1 {
		t.Fatalf("MatchPos = %v, %d; want true, 1", ok, pos)
	}
	p, err := CompileProjection(mustDoc(t, `{"grades.$": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	if !p.NeedsPosition() {
		t.Error("NeedsPosition = false")
	}
	got, err := p.Apply(doc, pos)
	if err != nil || bsonx.Compare(got, mustDoc(t, `{"_id": 1, "grades": [85]}`)) != 0 {
		t.Errorf("Apply = %v, %v", got, err)
	}
	if _, err := p.Apply(doc, -1); !mongoerr.Is(err, 51246) {
		t.Errorf("Apply without position: err = %v, want 51246", err)
	}
}

func TestProjectionErrors(t *testing.T) {
	cases := []struct {
		spec string
		code mongoerr.Code
	}{
		{`{"a": 1, "b": 0}`, 31254},
		{`{"a": 0, "b": 1}`, 31253},
		{`{"a": 0, "b": "$x"}`, 31252},
		{`{"a": 1, "a.b": 1}`, 31249},
		{`{"a.b": 1, "a": 1}`, 31250},
		{`{"a": {}}`, 51270},
		{`{"a.b": {"$elemMatch": {"x": 1}}}`, 31275},
		{`{"a": {"$elemMatch": 1}}`, mongoerr.BadValue},
		{`{"a.$": 1, "b.$": 1}`, 31276},
		{`{"a.$.b": 1}`, 31394},
		{`{"a": {"$slice": "x"}}`, 28667},
		{`{"a": {"$slice": [1, 0]}}`, 28724},
		{`{"a": {"$slice": [1]}}`, 28724},
		{`{"$a": 1}`, 16410},
		{`{"": 1}`, 40352},
		{`{"a": {"$meta": "textScore"}}`, mongoerr.NotImplemented},
		{`{"a": {"$bogus": 1}}`, mongoerr.InvalidPipelineOperator},
	}
	for _, c := range cases {
		_, err := CompileProjection(mustDoc(t, c.spec))
		if !mongoerr.Is(err, c.code) {
			t.Errorf("CompileProjection(%s) = %v, want code %d", c.spec, err, c.code)
		}
	}
}
