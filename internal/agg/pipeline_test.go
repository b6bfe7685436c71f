package agg

import (
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestLeadingMatchAndSort(t *testing.T) {
	cases := []struct {
		pipeline   string
		firstMatch string
		sort       string
	}{
		{`[{"$match": {"a": 1}}, {"$sort": {"b": 1}}, {"$match": {"c": 1}}]`, `{"a": 1}`, `{"b": 1}`},
		{`[{"$match": {"a": 1}}, {"$match": {"c": 1}}, {"$project": {"a": 1}}, {"$sort": {"b": 1}}]`, `{"$and": [{"a": 1}, {"c": 1}]}`, `null`},
		{`[{"$sort": {"b": -1}}, {"$limit": 3}]`, `null`, `{"b": -1}`},
		{`[{"$limit": 3}, {"$match": {"a": 1}}]`, `null`, `null`},
	}
	for _, c := range cases {
		p, err := Compile(ej(t, c.pipeline).(bson.A), Env{})
		if err != nil {
			t.Fatal(err)
		}
		wantM, _ := ej(t, c.firstMatch).(bson.D)
		wantS, _ := ej(t, c.sort).(bson.D)
		if !reflect.DeepEqual(p.FirstMatch(), wantM) || !reflect.DeepEqual(p.LeadingSort(), wantS) {
			t.Errorf("%s: got match %v sort %v", c.pipeline, p.FirstMatch(), p.LeadingSort())
		}
	}
}

func TestRunSortedSkipsLeadingSort(t *testing.T) {
	p, err := Compile(ej(t, `[{"$sort": {"a": 1}}, {"$limit": 2}]`).(bson.A), Env{})
	if err != nil {
		t.Fatal(err)
	}
	in := ejDocs(t, `[{"a": 3}, {"a": 1}, {"a": 2}]`)
	sorted, _ := Drain(p.Run(Slice(in)))
	trusted, _ := Drain(p.RunSorted(Slice(in)))
	if !reflect.DeepEqual(sorted, ejDocs(t, `[{"a": 1}, {"a": 2}]`)) {
		t.Errorf("Run: %v", sorted)
	}
	if !reflect.DeepEqual(trusted, ejDocs(t, `[{"a": 3}, {"a": 1}]`)) {
		t.Errorf("RunSorted: %v", trusted)
	}
}

func TestTopKStable(t *testing.T) {
	in := ejDocs(t, `[{"k": 1, "i": 0}, {"k": 0, "i": 1}, {"k": 1, "i": 2}, {"k": 0, "i": 3}, {"k": 1, "i": 4}]`)
	for _, limit := range []int32{1, 2, 3, 5, 10} {
		p, err := Compile(bson.A{
			bson.D{{Key: "$sort", Value: bson.D{{Key: "k", Value: int32(-1)}}}},
			bson.D{{Key: "$limit", Value: limit}},
		}, Env{})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := Drain(p.Run(Slice(in)))
		want := ejDocs(t, `[{"k": 1, "i": 0}, {"k": 1, "i": 2}, {"k": 1, "i": 4}, {"k": 0, "i": 1}, {"k": 0, "i": 3}]`)
		want = want[:min(int(limit), len(want))]
		if !reflect.DeepEqual(got, want) {
			t.Errorf("limit %d: got %v", limit, got)
		}
	}
}

func TestLetVars(t *testing.T) {
	env := Env{Let: bson.D{{Key: "k", Value: int32(10)}}}
	p, err := Compile(ej(t, `[{"$project": {"_id": 0, "v": {"$multiply": ["$a", "$$k"]}}}]`).(bson.A), env)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Drain(p.Run(Slice(ejDocs(t, `[{"a": 2}]`))))
	if err != nil || !reflect.DeepEqual(got, ejDocs(t, `[{"v": 20}]`)) {
		t.Fatalf("got %v, %v", got, err)
	}
	if _, err := Compile(ej(t, `[{"$project": {"v": "$$k"}}]`).(bson.A), Env{}); err == nil {
		t.Fatal("undefined variable accepted")
	}
	if _, err := Compile(bson.A{}, Env{Let: bson.D{{Key: "Bad", Value: 1}}}); err == nil {
		t.Fatal("invalid let name accepted")
	}
}

func TestStagesDoNotMutateInput(t *testing.T) {
	in := ejDocs(t, `[{"_id": 1, "a": {"b": [1, 2]}, "c": 3}]`)
	before := bson.D{}
	raw, _ := bson.Marshal(in[0])
	_ = bson.Unmarshal(raw, &before)
	for _, pl := range []string{
		`[{"$set": {"a.x": 1, "c": 4}}]`, `[{"$unset": "a.b"}]`, `[{"$unwind": "$a.b"}]`,
		`[{"$project": {"a.b": 1}}]`, `[{"$lookup": {"from": "inventory", "localField": "c", "foreignField": "qty", "as": "a.z"}}]`,
	} {
		if _, err := runPipe(t, pl, in); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(in[0], before) {
			t.Fatalf("%s mutated its input: %v", pl, in[0])
		}
	}
}
