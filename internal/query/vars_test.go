package query

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestCompileWithVars(t *testing.T) {
	now := time.Date(2024, 5, 6, 0, 0, 0, 0, time.UTC)
	vars, err := expr.EvalLet(mustDoc(t, `{"id": 1, "name": "n", "lim": {"$add": [1, 1]}}`), &expr.Vars{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		filter, doc string
		want        bool
	}{
		{`{"$expr": {"$eq": ["$_id", "$$id"]}}`, `{"_id": 1}`, true},
		{`{"$expr": {"$eq": ["$_id", "$$id"]}}`, `{"_id": 2}`, false},
		{`{"$expr": {"$eq": ["$name", "$$name"]}, "x": 1}`, `{"name": "n", "x": 1}`, true},
		{`{"$or": [{"a": 5}, {"$expr": {"$lt": ["$a", "$$lim"]}}]}`, `{"a": 1}`, true},
		{`{"$nor": [{"$expr": {"$lt": ["$a", "$$lim"]}}]}`, `{"a": 1}`, false},
		{`{"a": {"$not": {"$gt": 3}}, "$expr": {"$eq": ["$$ROOT.a", "$$id"]}}`, `{"a": 1}`, true},
		{`{"$expr": {"$eq": ["$d", "$$NOW"]}}`, `{"d": {"$date": "2024-05-06T00:00:00Z"}}`, true},
	}
	for _, c := range cases {
		m, err := CompileWithVars(mustDoc(t, c.filter), vars)
		if err != nil {
			t.Fatalf("%s: %v", c.filter, err)
		}
		if got := m.Match(mustDoc(t, c.doc)); got != c.want {
			t.Errorf("%s on %s: got %v, want %v", c.filter, c.doc, got, c.want)
		}
	}
}

func TestCompileWithVarsUndefined(t *testing.T) {
	f := mustDoc(t, `{"$expr": {"$eq": ["$_id", "$$id"]}}`)
	if _, err := Compile(f); !mongoerr.Is(err, 17276) {
		t.Fatalf("Compile: want 17276, got %v", err)
	}
	if _, err := CompileWithVars(f, nil); !mongoerr.Is(err, 17276) {
		t.Fatalf("CompileWithVars(nil): want 17276, got %v", err)
	}
}

func TestMatchVarsOverrides(t *testing.T) {
	scopeVars := (*expr.Vars)(nil).Bind("x", nil)
	m, err := CompileWithVars(mustDoc(t, `{"$or": [{"$expr": {"$eq": ["$a", "$$x"]}}]}`), scopeVars)
	if err != nil {
		t.Fatal(err)
	}
	doc := bson.D{{Key: "a", Value: int32(7)}}
	if m.Match(doc) {
		t.Fatal("compile-time x=null must not match a=7")
	}
	for _, c := range []struct {
		x    any
		want bool
	}{{int32(7), true}, {int32(8), false}, {7.0, true}} {
		if ok, _ := m.MatchVars(doc, scopeVars.Bind("x", c.x)); ok != c.want {
			t.Errorf("x=%v: got %v, want %v", c.x, ok, c.want)
		}
	}
}
