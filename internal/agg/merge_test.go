package agg

import (
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestSplitOutput(t *testing.T) {
	cases := []struct {
		pipeline  string
		stages    int
		out       *OutSpec
		mergeInto string
		code      int
	}{
		{pipeline: `[{"$match": {}}]`, stages: 1},
		{pipeline: `[{"$match": {}}, {"$out": "o"}]`, stages: 1, out: &OutSpec{DB: "db", Coll: "o"}},
		{pipeline: `[{"$out": {"db": "x", "coll": "o"}}]`, stages: 0, out: &OutSpec{DB: "x", Coll: "o"}},
		{pipeline: `[{"$merge": "m"}]`, mergeInto: "db.m"},
		{pipeline: `[{"$sort": {"a": 1}}, {"$merge": {"into": {"db": "y", "coll": "m"}}}]`, stages: 1, mergeInto: "y.m"},
		{pipeline: `[{"$out": "o"}, {"$match": {}}]`, code: 40601},
		{pipeline: `[{"$merge": "m"}, {"$match": {}}]`, code: 40601},
		{pipeline: `[{"$out": 1}]`, code: 16990},
		{pipeline: `[{"$out": {"coll": "o", "x": 1}}]`, code: 40415},
		{pipeline: `[{"$out": {"db": "o"}}]`, code: 40414},
		{pipeline: `[{"$out": "a$b"}]`, code: int(mongoerr.InvalidNamespace)},
		{pipeline: `[{"$out": ""}]`, code: int(mongoerr.InvalidNamespace)},
	}
	for _, c := range cases {
		t.Run(c.pipeline, func(t *testing.T) {
			stages, out, merge, err := SplitOutput(ej(t, c.pipeline).(bson.A), "db", nil)
			if c.code != 0 {
				if !mongoerr.Is(err, mongoerr.Code(c.code)) {
					t.Fatalf("want %d, got %v", c.code, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(stages) != c.stages || !reflect.DeepEqual(out, c.out) {
				t.Fatalf("stages %v out %+v", stages, out)
			}
			if got := ""; merge != nil {
				got = merge.DB + "." + merge.Coll
				if got != c.mergeInto {
					t.Fatalf("merge into %s", got)
				}
			} else if c.mergeInto != "" {
				t.Fatal("no merge spec")
			}
		})
	}
}

func TestCompileRejectsOutput(t *testing.T) {
	for pl, code := range map[string]int{
		`[{"$out": "o"}, {"$match": {}}]`:                  40601,
		`[{"$out": "o"}]`:                                  int(mongoerr.NotImplemented),
		`[{"$facet": {"a": [{"$merge": "o"}]}}]`:           40600,
		`[{"$match": {}}, {"$merge": "o"}, {"$out": "o"}]`: 40601,
	} {
		if _, err := Compile(ej(t, pl).(bson.A), Env{}); !mongoerr.Is(err, mongoerr.Code(code)) {
			t.Errorf("%s: want %d, got %v", pl, code, err)
		}
	}
}

func TestParseMerge(t *testing.T) {
	cases := []struct {
		spec string
		want string // "on|whenMatched|whenNotMatched"
		code int
	}{
		{spec: `"c"`, want: "[_id]|merge|insert"},
		{spec: `{"into": "c", "on": "k", "whenMatched": "replace", "whenNotMatched": "discard"}`, want: "[k]|replace|discard"},
		{spec: `{"into": "c", "on": ["a", "b.c"], "whenMatched": "keepExisting", "whenNotMatched": "fail"}`, want: "[a b.c]|keepExisting|fail"},
		{spec: `{"into": "c", "whenMatched": [{"$set": {"x": "$$new.x"}}]}`, want: "[_id]|pipeline|insert"},
		{spec: `{"into": "c", "let": {"v": "$x"}, "whenMatched": [{"$set": {"x": "$$v"}}]}`, want: "[_id]|pipeline|insert"},
		{spec: `5`, code: 51182},
		{spec: `{"on": "a"}`, code: 40414},
		{spec: `{"into": "c", "bogus": 1}`, code: 40415},
		{spec: `{"into": 5}`, code: 51178},
		{spec: `{"into": {"db": "d"}}`, code: 40414},
		{spec: `{"into": "c", "on": 5}`, code: 51186},
		{spec: `{"into": "c", "on": []}`, code: 51187},
		{spec: `{"into": "c", "on": [1]}`, code: 51134},
		{spec: `{"into": "c", "on": ["a", "a"]}`, code: 31465},
		{spec: `{"into": "c", "whenMatched": "nope"}`, code: 2},
		{spec: `{"into": "c", "whenMatched": 1}`, code: 51191},
		{spec: `{"into": "c", "whenNotMatched": "nope"}`, code: 2},
		{spec: `{"into": "c", "let": {"a": 1}, "whenMatched": "merge"}`, code: 51199},
		{spec: `{"into": "c", "whenMatched": [{"$match": {}}]}`, code: int(mongoerr.InvalidOptions)},
		{spec: `{"into": "c", "whenMatched": [{"$set": {"x": "$$nope"}}]}`, code: 17276},
		{spec: `{"into": "c", "let": {"Bad": 1}, "whenMatched": []}`, code: 16867},
	}
	for _, c := range cases {
		t.Run(c.spec, func(t *testing.T) {
			m, err := ParseMerge(ej(t, c.spec), "db", nil)
			if c.code != 0 {
				if !mongoerr.Is(err, mongoerr.Code(c.code)) {
					t.Fatalf("want %d, got %v", c.code, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := fmtList(m.On) + "|" + string(m.WhenMatched) + "|" + string(m.WhenNotMatched)
			if got != c.want {
				t.Fatalf("got %s, want %s", got, c.want)
			}
		})
	}
}

func fmtList(s []string) string {
	out := "["
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out + "]"
}

func TestMergeApply(t *testing.T) {
	vars, err := expr.EvalLet(bson.D{{Key: "k", Value: int32(100)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		spec, existing, incoming string
		want                     string // result document ("" for nil)
		action                   MergeAction
		code                     int
	}{
		{spec: `"c"`, incoming: `{"_id": 1, "a": 1}`, want: `{"_id": 1, "a": 1}`, action: MergeInsert},
		{spec: `"c"`, existing: `{"_id": 1, "a": 1, "b": 2}`, incoming: `{"_id": 1, "a": 5, "c": 3}`, want: `{"_id": 1, "a": 5, "b": 2, "c": 3}`, action: MergeReplace},
		{spec: `{"into": "c", "whenMatched": "replace"}`, existing: `{"_id": 1, "a": 1, "b": 2}`, incoming: `{"_id": 1, "c": 3}`, want: `{"_id": 1, "c": 3}`, action: MergeReplace},
		{spec: `{"into": "c", "on": "k", "whenMatched": "replace"}`, existing: `{"_id": 7, "k": 1, "b": 2}`, incoming: `{"k": 1, "c": 3}`, want: `{"_id": 7, "k": 1, "c": 3}`, action: MergeReplace},
		{spec: `{"into": "c", "on": "k", "whenMatched": "replace"}`, existing: `{"_id": 7, "k": 1}`, incoming: `{"_id": 8, "k": 1}`, action: MergeFail, code: int(mongoerr.ImmutableField)},
		{spec: `{"into": "c", "whenMatched": "keepExisting"}`, existing: `{"_id": 1, "a": 1}`, incoming: `{"_id": 1, "a": 2}`, want: `{"_id": 1, "a": 1}`, action: MergeDiscard},
		{spec: `{"into": "c", "whenMatched": "fail"}`, existing: `{"_id": 2, "x": 1}`, incoming: `{"_id": 2, "x": 1}`, action: MergeFail, code: 11000},
		{spec: `{"into": "c", "whenNotMatched": "discard"}`, incoming: `{"_id": 1}`, action: MergeDiscard},
		{spec: `{"into": "c", "whenNotMatched": "fail"}`, incoming: `{"_id": 1}`, action: MergeFail, code: 13113},
		{spec: `{"into": "c", "whenMatched": [{"$set": {"total": {"$add": ["$total", "$$new.total", "$$k"]}}}]}`,
			existing: `{"_id": 1, "total": 5}`, incoming: `{"_id": 1, "total": 7}`, want: `{"_id": 1, "total": 112}`, action: MergeReplace},
		{spec: `{"into": "c", "let": {"inc": "$total"}, "whenMatched": [{"$set": {"total": {"$add": ["$total", "$$inc"]}, "n": "$$new"}}]}`,
			existing: `{"_id": 1, "total": 5}`, incoming: `{"_id": 1, "total": 7}`, want: `{"_id": 1, "total": 12, "n": {"_id": 1, "total": 7}}`, action: MergeReplace},
		{spec: `{"into": "c", "whenMatched": [{"$replaceWith": {"a": 1}}]}`,
			existing: `{"_id": 1, "total": 5}`, incoming: `{"_id": 1}`, want: `{"_id": 1, "a": 1}`, action: MergeReplace},
	}
	for _, c := range cases {
		t.Run(c.spec+c.existing, func(t *testing.T) {
			m, err := ParseMerge(ej(t, c.spec), "db", vars)
			if err != nil {
				t.Fatal(err)
			}
			var existing bson.D
			if c.existing != "" {
				existing = ej(t, c.existing).(bson.D)
			}
			got, action, err := m.Apply(existing, ej(t, c.incoming).(bson.D))
			if action != c.action {
				t.Fatalf("action %d, want %d (err %v)", action, c.action, err)
			}
			if c.code != 0 {
				if !mongoerr.Is(err, mongoerr.Code(c.code)) {
					t.Fatalf("want %d, got %v", c.code, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var want bson.D
			if c.want != "" {
				want = ej(t, c.want).(bson.D)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got %v, want %v", got, want)
			}
		})
	}
}

func TestMergePrepare(t *testing.T) {
	m, _ := ParseMerge(ej(t, `{"into": "c", "on": ["_id", "a.b"]}`), "db", nil)
	doc, key, err := m.Prepare(ej(t, `{"a": {"b": 3}}`).(bson.D))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := doc[0].Value.(bson.ObjectID); !ok || doc[0].Key != "_id" {
		t.Fatalf("no generated _id: %v", doc)
	}
	if len(key) != 2 || key[1].Key != "a.b" || key[1].Value != int32(3) {
		t.Fatalf("key %v", key)
	}
	for _, bad := range []string{`{"_id": 1}`, `{"_id": 1, "a": {"b": null}}`, `{"_id": 1, "a": {"b": [1]}}`} {
		if _, _, err := m.Prepare(ej(t, bad).(bson.D)); !mongoerr.Is(err, 51132) {
			t.Errorf("%s: want 51132, got %v", bad, err)
		}
	}
	if kp := m.KeyPattern(); len(kp) != 2 || kp[0].Key != "_id" {
		t.Fatalf("key pattern %v", kp)
	}
}

func TestDocumentsStage(t *testing.T) {
	runPipeCases(t, []pipeCase{
		{pipeline: `[{"$documents": [{"_id": 2, "x": 1}, {"a": 1}]}]`, want: `[{"_id": 2, "x": 1}, {"a": 1}]`},
		{pipeline: `[{"$documents": [{"a": 1}, {"a": 2}]}, {"$match": {"a": 2}}]`, want: `[{"a": 2}]`},
		{pipeline: `[{"$documents": 5}]`, code: 5858203},
		{pipeline: `[{"$documents": [1]}]`, code: 40228},
	})
}

func TestListLocalSessions(t *testing.T) {
	env := testEnv(t)
	env.LocalSessions = func() ([]bson.D, error) {
		return []bson.D{{{Key: "_id", Value: bson.D{{Key: "id", Value: int32(1)}}}}, {{Key: "_id", Value: bson.D{{Key: "id", Value: int32(2)}}}}}, nil
	}
	p, err := Compile(ej(t, `[{"$listLocalSessions": {}}, {"$limit": 1}, {"$addFields": {"dummy": "d"}}, {"$project": {"_id": 0, "dummy": 1}}]`).(bson.A), env)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Drain(p.Run(Slice(nil)))
	if err != nil || !reflect.DeepEqual(got, ejDocs(t, `[{"dummy": "d"}]`)) {
		t.Fatalf("got %v, %v", got, err)
	}
	runPipeCases(t, []pipeCase{
		{pipeline: `[{"$listLocalSessions": {"allUsers": true}}]`, want: `[]`},
		{pipeline: `[{"$listLocalSessions": {"bogus": 1}}]`, code: 40415},
		{pipeline: `[{"$listLocalSessions": 1}]`, code: int(mongoerr.TypeMismatch)},
		{pipeline: `[{"$match": {}}, {"$listLocalSessions": {}}]`, code: 40602},
		{pipeline: `[{"$match": {}}, {"$documents": []}]`, code: 40602},
	})
}
