package agg

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/collation"
)

func TestGroupKeysUnderCollation(t *testing.T) {
	spec, err := collation.Parse(bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: int32(2)}})
	if err != nil {
		t.Fatal(err)
	}
	docs := []bson.D{{{Key: "s", Value: "a"}}, {{Key: "s", Value: "A"}}, {{Key: "s", Value: "b"}}}
	group := bson.A{bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$s"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}}}
	for _, tc := range []struct {
		coll   *collation.Collator
		groups int
	}{{nil, 3}, {collation.New(spec), 2}} {
		p, err := Compile(group, Env{Collator: tc.coll})
		if err != nil {
			t.Fatal(err)
		}
		out, err := Drain(p.Run(Slice(docs)))
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != tc.groups {
			t.Errorf("collated %v: %d groups %v, want %d", tc.coll != nil, len(out), out, tc.groups)
		}
	}
}

func TestMatchAndSortUnderCollation(t *testing.T) {
	spec, err := collation.Parse(bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: int32(2)}})
	if err != nil {
		t.Fatal(err)
	}
	docs := []bson.D{{{Key: "s", Value: "b"}}, {{Key: "s", Value: "A"}}, {{Key: "s", Value: "a"}}, {{Key: "s", Value: "C"}}}
	pipeline := bson.A{
		bson.D{{Key: "$match", Value: bson.D{{Key: "s", Value: bson.D{{Key: "$lt", Value: "c"}}}}}},
		bson.D{{Key: "$sort", Value: bson.D{{Key: "s", Value: 1}}}},
	}
	p, err := Compile(pipeline, Env{Collator: collation.New(spec)})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Drain(p.Run(Slice(docs)))
	if err != nil {
		t.Fatal(err)
	}
	var got []any
	for _, d := range out {
		got = append(got, d[0].Value)
	}
	if len(got) != 3 || got[0] != "A" || got[1] != "a" || got[2] != "b" {
		t.Errorf("$match {$lt: \"c\"} then $sort under en/2: %v, want [A a b]", got)
	}
}

func TestLookupUnderCollation(t *testing.T) {
	spec, err := collation.Parse(bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: int32(2)}})
	if err != nil {
		t.Fatal(err)
	}
	foreign := []bson.D{{{Key: "k", Value: "X"}}, {{Key: "k", Value: "y"}}}
	env := Env{Collator: collation.New(spec), Lookup: func(_, _ string) (Iterator, error) { return Slice(foreign), nil }}
	p, err := Compile(bson.A{bson.D{{Key: "$lookup", Value: bson.D{{Key: "from", Value: "f"}, {Key: "localField", Value: "k"},
		{Key: "foreignField", Value: "k"}, {Key: "as", Value: "m"}}}}}, env)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Drain(p.Run(Slice([]bson.D{{{Key: "k", Value: "x"}}})))
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := out[0][len(out[0])-1].Value.(bson.A); len(m) != 1 {
		t.Errorf("$lookup k: \"x\" under en/2: %v, want the \"X\" document", out)
	}
}

func TestExpressionsUnderCollation(t *testing.T) {
	spec, err := collation.Parse(bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: int32(2)}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile(bson.A{bson.D{{Key: "$project", Value: bson.D{
		{Key: "eq", Value: bson.D{{Key: "$eq", Value: bson.A{"$s", "A"}}}},
		{Key: "in", Value: bson.D{{Key: "$in", Value: bson.A{"$s", bson.A{"x", "A"}}}}},
		{Key: "cmp", Value: bson.D{{Key: "$cmp", Value: bson.A{"$s", "B"}}}},
	}}}}, Env{Collator: collation.New(spec)})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Drain(p.Run(Slice([]bson.D{{{Key: "_id", Value: 1}, {Key: "s", Value: "a"}}})))
	if err != nil {
		t.Fatal(err)
	}
	want := bson.D{{Key: "_id", Value: 1}, {Key: "eq", Value: true}, {Key: "in", Value: true}, {Key: "cmp", Value: int32(-1)}}
	if len(out) != 1 || len(out[0]) != 4 || out[0][1] != want[1] || out[0][2] != want[2] || out[0][3] != want[3] {
		t.Errorf("$project under en/2: %v, want %v", out, want)
	}
}

func TestAccumulatorsUnderCollation(t *testing.T) {
	spec, err := collation.Parse(bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: int32(2)}})
	if err != nil {
		t.Fatal(err)
	}
	docs := []bson.D{{{Key: "s", Value: "b"}}, {{Key: "s", Value: "A"}}, {{Key: "s", Value: "a"}}, {{Key: "s", Value: "B"}}, {{Key: "s", Value: "Z"}}}
	group := bson.A{bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil},
		{Key: "max", Value: bson.D{{Key: "$max", Value: "$s"}}}, {Key: "set", Value: bson.D{{Key: "$addToSet", Value: "$s"}}}}}}}
	for _, tc := range []struct {
		coll    *collation.Collator
		max     string
		setSize int
	}{{nil, "b", 5}, {collation.New(spec), "Z", 3}} {
		p, err := Compile(group, Env{Collator: tc.coll})
		if err != nil {
			t.Fatal(err)
		}
		out, err := Drain(p.Run(Slice(docs)))
		if err != nil || len(out) != 1 {
			t.Fatalf("%v %v", out, err)
		}
		set, _ := out[0][2].Value.(bson.A)
		if out[0][1].Value != tc.max || len(set) != tc.setSize {
			t.Errorf("collated %v: %v, want max %q and %d distinct", tc.coll != nil, out[0], tc.max, tc.setSize)
		}
	}
}
