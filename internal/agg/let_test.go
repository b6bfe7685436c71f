package agg

import (
	"reflect"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// letCase runs pipeline with the command let document let.
type letCase struct {
	name, let, pipeline, input, want string
	code                             int
}

func runLetCases(t *testing.T, cases []letCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := testEnv(t)
			if c.let != "" {
				env.Let = ej(t, c.let).(bson.D)
			}
			got, err := compileAndRun(t, c.pipeline, c.input, env)
			if c.code != 0 {
				if !mongoerr.Is(err, mongoerr.Code(c.code)) {
					t.Fatalf("want code %d, got %v (docs %v)", c.code, err, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := ejDocs(t, c.want); !reflect.DeepEqual(got, want) {
				t.Fatalf("got  %v\nwant %v", got, want)
			}
		})
	}
}

func compileAndRun(t *testing.T, pipeline, input string, env Env) ([]bson.D, error) {
	p, err := Compile(ej(t, pipeline).(bson.A), env)
	if err != nil {
		return nil, err
	}
	var in []bson.D
	if input != "" {
		in = ejDocs(t, input)
	}
	return Drain(p.Run(Slice(in)))
}

func TestCommandLet(t *testing.T) {
	const in = `[{"_id": 1, "a": 5}, {"_id": 2, "a": 6}]`
	runLetCases(t, []letCase{
		{name: "match expr", let: `{"id": 1}`, pipeline: `[{"$match": {"$expr": {"$eq": ["$_id", "$$id"]}}}]`,
			input: in, want: `[{"_id": 1, "a": 5}]`},
		{name: "project let values", let: `{"x": "foo", "y": {"$literal": "$bar"}}`,
			pipeline: `[{"$match": {"_id": 2}}, {"$project": {"_id": 0, "x": "$$x", "y": "$$y"}}]`,
			input:    in, want: `[{"x": "foo", "y": "$bar"}]`},
		{name: "let refers to earlier let", let: `{"a": 2, "b": {"$multiply": ["$$a", 10]}}`,
			pipeline: `[{"$project": {"_id": 0, "v": {"$add": ["$a", "$$b"]}}}]`,
			input:    in, want: `[{"v": 25}, {"v": 26}]`},
		{name: "now in let", let: `{"t": "$$NOW"}`, pipeline: `[{"$limit": 1}, {"$project": {"_id": 0, "same": {"$eq": ["$$t", "$$NOW"]}}}]`,
			input: in, want: `[{"same": true}]`},
		{name: "match expr in facet", let: `{"id": 2}`,
			pipeline: `[{"$facet": {"f": [{"$match": {"$expr": {"$eq": ["$_id", "$$id"]}}}, {"$project": {"a": 1, "_id": 0}}]}}]`,
			input:    in, want: `[{"f": [{"a": 6}]}]`},
		{name: "field path in let", let: `{"x": "$a"}`, pipeline: `[]`, code: 4890500},
		{name: "bad let name", let: `{"X": 1}`, pipeline: `[]`, code: 16867},
		{name: "undefined var", let: `{"x": 1}`, pipeline: `[{"$project": {"v": "$$y"}}]`, code: 17276},
		{name: "undefined var in match", pipeline: `[{"$match": {"$expr": "$$y"}}]`, code: 17276},
	})
}

func TestLookupLetPipeline(t *testing.T) {
	const in = `[{"_id": 1, "want": "a", "min": 5}, {"_id": 2, "want": "b", "min": 0}, {"_id": 3, "want": "zz"}]`
	runLetCases(t, []letCase{
		{name: "correlated", pipeline: `[{"$lookup": {"from": "inventory", "let": {"w": "$want", "m": "$min"},
			"pipeline": [{"$match": {"$expr": {"$and": [{"$eq": ["$sku", "$$w"]}, {"$gte": ["$qty", "$$m"]}]}}}, {"$project": {"_id": 1}}],
			"as": "hits"}}, {"$project": {"hits": 1}}]`,
			input: in, want: `[{"_id": 1, "hits": [{"_id": 1}]}, {"_id": 2, "hits": [{"_id": 2}]}, {"_id": 3, "hits": []}]`},
		{name: "command let visible in sub-pipeline", let: `{"lim": 1}`,
			pipeline: `[{"$limit": 1}, {"$lookup": {"from": "inventory", "let": {"w": "$want"},
			"pipeline": [{"$match": {"$expr": {"$lte": ["$_id", "$$lim"]}}}, {"$project": {"_id": 1, "w": "$$w"}}], "as": "x"}}]`,
			input: in, want: `[{"_id": 1, "want": "a", "min": 5, "x": [{"_id": 1, "w": "a"}]}]`},
		{name: "let with localField", pipeline: `[{"$match": {"_id": 1}}, {"$lookup": {"from": "inventory", "localField": "want", "foreignField": "sku",
			"let": {"m": "$min"}, "pipeline": [{"$project": {"_id": 1, "ok": {"$gte": ["$qty", "$$m"]}}}], "as": "x"}}, {"$project": {"x": 1}}]`,
			input: in, want: `[{"_id": 1, "x": [{"_id": 1, "ok": true}, {"_id": 5, "ok": false}]}]`},
		{name: "let vars out of scope after lookup", pipeline: `[{"$lookup": {"from": "inventory", "let": {"w": "$want"}, "pipeline": [], "as": "x"}}, {"$project": {"v": "$$w"}}]`,
			code: 17276},
		{name: "let without pipeline", pipeline: `[{"$lookup": {"from": "inventory", "localField": "a", "foreignField": "b", "let": {"w": 1}, "as": "x"}}]`,
			code: 9},
		{name: "bad let var name", pipeline: `[{"$lookup": {"from": "inventory", "let": {"W": 1}, "pipeline": [], "as": "x"}}]`,
			code: 16867},
	})
}

func TestEnvVarsShared(t *testing.T) {
	vars, err := expr.EvalLet(bson.D{{Key: "id", Value: int32(2)}}, &expr.Vars{Now: time.Unix(10, 0)})
	if err != nil {
		t.Fatal(err)
	}
	got, err := compileAndRun(t, `[{"$match": {"$expr": {"$eq": ["$_id", "$$id"]}}}, {"$project": {"n": "$$NOW"}}]`,
		`[{"_id": 1}, {"_id": 2}]`, Env{Vars: vars})
	if err != nil {
		t.Fatal(err)
	}
	want := []bson.D{{{Key: "_id", Value: int32(2)}, {Key: "n", Value: bson.NewDateTimeFromTime(time.Unix(10, 0))}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v", got)
	}
}
