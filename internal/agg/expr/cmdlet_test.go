package expr

import (
	"reflect"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestEvalLet(t *testing.T) {
	now := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		let  string
		name string // variable to read back
		want string
		code int
	}{
		{let: `{"id": 1}`, name: "id", want: `1`},
		{let: `{"y": {"$literal": "$bar"}}`, name: "y", want: `"$bar"`},
		{let: `{"a": 2, "b": {"$add": ["$$a", 3]}}`, name: "b", want: `5`},
		{let: `{"t": "$$NOW"}`, name: "t", want: `{"$date": "2024-01-02T03:04:05Z"}`},
		{let: `{"doc": {"x": {"$multiply": [2, 2]}}}`, name: "doc", want: `{"x": 4}`},
		{let: `{"r": "$$REMOVE"}`, name: "r", want: `MISSING`},
		{let: `{"a": "$field"}`, code: 4890500},
		{let: `{"a": "$$ROOT"}`, code: 4890500},
		{let: `{"a": {"$concat": ["$x", "y"]}}`, code: 4890500},
		{let: `{"b": "$$a", "a": 1}`, code: 17276},
		{let: `{"": 1}`, code: 16866},
		{let: `{"Upper": 1}`, code: 16867},
		{let: `{"$$x": 1}`, code: 16867},
		{let: `{"a-b": 1}`, code: 16868},
		{let: `{"ct": "$$CLUSTER_TIME"}`, code: 51144},
		{let: `{"a": {"$nope": 1}}`, code: int(mongoerr.InvalidPipelineOperator)},
	}
	for _, c := range cases {
		t.Run(c.let, func(t *testing.T) {
			vars, err := EvalLet(ejDoc(t, c.let), &Vars{Now: now})
			if c.code != 0 {
				if !mongoerr.Is(err, mongoerr.Code(c.code)) {
					t.Fatalf("want code %d, got %v", c.code, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, ok := vars.Lookup(c.name)
			if !ok {
				t.Fatalf("%s not bound", c.name)
			}
			var want any = Missing
			if c.want != "MISSING" {
				want = ej(t, c.want)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got %#v, want %#v", got, want)
			}
		})
	}
}

func TestEvalLetVisibleToCompile(t *testing.T) {
	vars, err := EvalLet(ejDoc(t, `{"x": "foo", "r": {"$rand": {}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := CompileWithVars("$$r", vars.Names())
	if err != nil {
		t.Fatal(err)
	}
	a, _ := e.Eval(bson.D{}, vars)
	b, _ := e.Eval(bson.D{{Key: "q", Value: 1}}, vars)
	if _, ok := a.(float64); !ok || a != b {
		t.Fatalf("$rand in let must be evaluated once: %v %v", a, b)
	}
	if vars.Now.IsZero() {
		t.Fatal("$$NOW not fixed")
	}
	if _, err := Compile("$$x"); !mongoerr.Is(err, 17276) {
		t.Fatalf("without vars, $$x must be undefined: %v", err)
	}
}

func TestClusterTime(t *testing.T) {
	e, err := Compile("$$CLUSTER_TIME")
	if err != nil {
		t.Fatal(err)
	}
	ts := bson.Timestamp{T: 5, I: 1}
	if v, err := e.Eval(bson.D{}, &Vars{ClusterTime: ts}); err != nil || v != ts {
		t.Fatalf("got %v %v", v, err)
	}
	if _, err := e.Eval(bson.D{}, nil); !mongoerr.Is(err, 51144) {
		t.Fatalf("want 51144, got %v", err)
	}
}
