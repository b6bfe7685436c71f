package query

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// foldCase orders strings ignoring ASCII case (a strength-2 stand-in).
type foldCase struct{}

func (foldCase) CompareString(a, b string) int {
	return strings.Compare(strings.ToLower(a), strings.ToLower(b))
}

func TestFilterUnderCollator(t *testing.T) {
	doc := bson.D{{Key: "s", Value: "Hello"}, {Key: "a", Value: bson.A{"X", "y"}}, {Key: "d", Value: bson.D{{Key: "k", Value: "V"}}}}
	cases := []struct {
		filter     bson.D
		binary, ci bool
	}{
		{bson.D{{Key: "s", Value: "hello"}}, false, true},
		{bson.D{{Key: "s", Value: bson.D{{Key: "$ne", Value: "hello"}}}}, true, false},
		{bson.D{{Key: "s", Value: bson.D{{Key: "$lt", Value: "a"}}}}, true, false},
		{bson.D{{Key: "s", Value: bson.D{{Key: "$gte", Value: "h"}}}}, false, true},
		{bson.D{{Key: "s", Value: bson.D{{Key: "$in", Value: bson.A{"x", "HELLO"}}}}}, false, true},
		{bson.D{{Key: "s", Value: bson.D{{Key: "$nin", Value: bson.A{"hello"}}}}}, true, false},
		{bson.D{{Key: "a", Value: "x"}}, false, true},
		{bson.D{{Key: "a", Value: bson.A{"x", "Y"}}}, false, true},
		{bson.D{{Key: "a", Value: bson.D{{Key: "$all", Value: bson.A{"x", "Y"}}}}}, false, true},
		{bson.D{{Key: "d", Value: bson.D{{Key: "k", Value: "v"}}}}, false, true},
		{bson.D{{Key: "s", Value: bson.Regex{Pattern: "^hello"}}}, false, false}, // regex ignores collation
	}
	for _, tc := range cases {
		for _, ci := range []bool{false, true} {
			o := Options{}
			want := tc.binary
			if ci {
				o.Collator, want = foldCase{}, tc.ci
			}
			m, err := CompileOptions(tc.filter, o)
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Match(doc); got != want {
				t.Errorf("%v (collated %v): match %v, want %v", tc.filter, ci, got, want)
			}
		}
	}
}

func TestSortUnderCollator(t *testing.T) {
	s, err := CompileSort(bson.D{{Key: "s", Value: 1}})
	if err != nil {
		t.Fatal(err)
	}
	a, b := bson.D{{Key: "s", Value: "b"}}, bson.D{{Key: "s", Value: "C"}}
	if s.Compare(a, b) <= 0 {
		t.Error("binary: \"b\" must sort after \"C\"")
	}
	if s.WithCollator(foldCase{}).Compare(a, b) >= 0 {
		t.Error("collated: \"b\" must sort before \"C\"")
	}
}

func TestExprUnderCollator(t *testing.T) {
	filter := bson.D{{Key: "$expr", Value: bson.D{{Key: "$eq", Value: bson.A{"$s", "HELLO"}}}}}
	doc := bson.D{{Key: "s", Value: "hello"}}
	for _, tc := range []struct {
		o    Options
		want bool
	}{{Options{}, false}, {Options{Collator: foldCase{}}, true}} {
		m, err := CompileOptions(filter, tc.o)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Match(doc); got != tc.want {
			t.Errorf("$expr $eq (collated %v): %v, want %v", tc.o.Collator != nil, got, tc.want)
		}
	}
}
