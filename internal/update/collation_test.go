package update

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// foldCase orders strings ignoring ASCII case (a strength-2 stand-in).
type foldCase struct{}

func (foldCase) CompareString(a, b string) int {
	return strings.Compare(strings.ToLower(a), strings.ToLower(b))
}

func TestOperatorsUnderCollator(t *testing.T) {
	doc := bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: bson.A{"x", "Y"}}, {Key: "s", Value: "m"}}
	cases := []struct {
		name    string
		u       bson.D
		filters []bson.D
		binary  bson.D // the document after, without a collator
		ci      bson.D // with foldCase
	}{
		{"$addToSet", bson.D{{Key: "$addToSet", Value: bson.D{{Key: "a", Value: "X"}}}},
			nil, docWith(doc, "a", bson.A{"x", "Y", "X"}), doc},
		{"$pull", bson.D{{Key: "$pull", Value: bson.D{{Key: "a", Value: "y"}}}},
			nil, doc, docWith(doc, "a", bson.A{"x"})},
		{"$pullAll", bson.D{{Key: "$pullAll", Value: bson.D{{Key: "a", Value: bson.A{"X"}}}}},
			nil, doc, docWith(doc, "a", bson.A{"Y"})},
		{"$max", bson.D{{Key: "$max", Value: bson.D{{Key: "s", Value: "N"}}}},
			nil, doc, docWith(doc, "s", "N")},
		{"arrayFilters", bson.D{{Key: "$set", Value: bson.D{{Key: "a.$[e]", Value: "z"}}}},
			[]bson.D{{{Key: "e", Value: "y"}}}, doc, docWith(doc, "a", bson.A{"x", "z"})},
	}
	for _, tc := range cases {
		for _, ci := range []bool{false, true} {
			o, want := Options{ArrayFilters: tc.filters}, tc.binary
			if ci {
				o.Collator, want = foldCase{}, tc.ci
			}
			u, err := Compile(tc.u, o)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			res, err := u.Apply(doc, ApplyContext{MatchedPos: -1})
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if bsonx.CompareDocs(res.Doc, want) != 0 {
				t.Errorf("%s (collated %v): %v, want %v", tc.name, ci, res.Doc, want)
			}
		}
	}
}

func docWith(d bson.D, k string, v any) bson.D {
	out := append(bson.D(nil), d...)
	for i := range out {
		if out[i].Key == k {
			out[i].Value = v
		}
	}
	return out
}
