package update

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// P parses a pipeline from relaxed extended JSON ({"p": [...]}).
func P(t testing.TB, s string) bson.A {
	t.Helper()
	a, _ := D(t, `{"p": `+s+`}`)[0].Value.(bson.A)
	return a
}

func TestPipeline(t *testing.T) {
	cases := []struct {
		name, doc, pipeline, want string
		let                       string
		filters                   bool
		noop                      bool
		code                      mongoerr.Code
	}{
		{name: "set expression", doc: `{"_id": 1, "a": 2}`, pipeline: `[{"$set": {"b": {"$add": ["$a", 1]}}}]`, want: `{"_id": 1, "a": 2, "b": 3}`},
		{name: "unset", doc: `{"_id": 1, "a": 2, "b": 1}`, pipeline: `[{"$unset": "a"}]`, want: `{"_id": 1, "b": 1}`},
		{name: "project keeps _id", doc: `{"_id": 1, "a": 2, "b": 1}`, pipeline: `[{"$project": {"b": 1}}]`, want: `{"_id": 1, "b": 1}`},
		{name: "replaceWith keeps _id", doc: `{"_id": 1, "a": {"x": 1}}`, pipeline: `[{"$replaceWith": "$a"}]`, want: `{"_id": 1, "x": 1}`},
		{name: "noop", doc: `{"_id": 1, "a": 2}`, pipeline: `[{"$set": {"a": 2}}]`, want: `{"_id": 1, "a": 2}`, noop: true},
		{name: "changes _id", doc: `{"_id": 1}`, pipeline: `[{"$set": {"_id": 2}}]`, code: mongoerr.ImmutableField},
		{name: "stage not allowed", doc: `{"_id": 1}`, pipeline: `[{"$match": {}}]`, code: mongoerr.InvalidOptions},
		{name: "let", doc: `{"_id": 1}`, let: `{"x": "foo", "y": {"$literal": "bar"}}`, pipeline: `[{"$set": {"x": "$$x", "y": "$$y"}}]`, want: `{"_id": 1, "x": "foo", "y": "bar"}`},
		{name: "let undefined", doc: `{"_id": 1}`, let: `{"x": 1}`, pipeline: `[{"$set": {"y": "$$y"}}]`, code: 17276},
		{name: "setField dollar key", doc: `{"_id": 1}`, pipeline: `[{"$replaceWith": {"$setField": {"field": {"$literal": "$a"}, "value": "", "input": "$$ROOT"}}}]`, want: `{"_id": 1, "$a": ""}`},
		{name: "setField dotted key", doc: `{"_id": 1}`, pipeline: `[{"$replaceWith": {"$setField": {"field": {"$literal": "a.b"}, "value": 2, "input": "$$ROOT"}}}]`, want: `{"_id": 1, "a.b": 2}`},
		{name: "setField in embedded doc", doc: `{"_id": 1, "a": {}}`, pipeline: `[{"$set": {"a": {"$setField": {"field": {"$literal": "$b"}, "value": 3, "input": "$a"}}}}]`, want: `{"_id": 1, "a": {"$b": 3}}`},
		{name: "unsetField dollar key", doc: `{"_id": 1, "$a": 1, "b": 2}`, pipeline: `[{"$replaceWith": {"$unsetField": {"field": {"$literal": "$a"}, "input": "$$ROOT"}}}]`, want: `{"_id": 1, "b": 2}`},
		{name: "array filters", doc: `{"_id": 1}`, pipeline: `[{"$set": {"a": 1}}]`, filters: true, code: mongoerr.FailedToParse},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var opts Options
			if c.let != "" {
				vars, err := expr.EvalLet(D(t, c.let), nil)
				if err != nil {
					t.Fatal(err)
				}
				opts.Vars = vars
			}
			if c.filters {
				opts.ArrayFilters = []bson.D{D(t, `{"x": 1}`)}
			}
			doc := D(t, c.doc)
			u, err := Compile(P(t, c.pipeline), opts)
			var res Result
			if err == nil {
				res, err = u.Apply(doc, ApplyContext{MatchedPos: -1, Now: testNow})
			}
			if checkErr(t, err, c.code, "") {
				return
			}
			if want := D(t, c.want); !identical(res.Doc, want) {
				t.Fatalf("got %s, want %s", fmtValue(res.Doc), fmtValue(want))
			}
			if res.Changed == c.noop {
				t.Fatalf("Changed = %v", res.Changed)
			}
			checkIdempotent(t, doc, res)
		})
	}
}

func TestPipelineUpsert(t *testing.T) {
	u, err := Compile(P(t, `[{"$set": {"n": {"$literal": 1}}}]`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := u.Upsert(D(t, `{"_id": 3, "a": 1}`), ApplyContext{MatchedPos: -1})
	if err != nil {
		t.Fatal(err)
	}
	if want := D(t, `{"_id": 3, "a": 1, "n": 1}`); !identical(got, want) {
		t.Fatalf("got %s, want %s", fmtValue(got), fmtValue(want))
	}
}
