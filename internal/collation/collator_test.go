package collation

import (
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func mustCollator(t *testing.T, doc bson.D) *Collator {
	t.Helper()
	s, err := Parse(doc)
	if err != nil {
		t.Fatalf("Parse(%v): %v", doc, err)
	}
	return New(s)
}

// TestGoldenOrders sorts words under a collation and checks the order
// ICU (MongoDB) gives.
func TestGoldenOrders(t *testing.T) {
	cases := []struct {
		name string
		doc  bson.D
		in   []string
		want []string
	}{
		{"en tertiary", bson.D{{Key: "locale", Value: "en"}},
			[]string{"b", "B", "a", "A", "ä"}, []string{"a", "A", "ä", "b", "B"}},
		{"en caseFirst upper", bson.D{{Key: "locale", Value: "en"}, {Key: "caseFirst", Value: "upper"}},
			[]string{"b", "B", "a", "A"}, []string{"A", "a", "B", "b"}},
		{"en numericOrdering", bson.D{{Key: "locale", Value: "en"}, {Key: "numericOrdering", Value: true}},
			[]string{"10", "9", "100", "2"}, []string{"2", "9", "10", "100"}},
		{"en no numericOrdering", bson.D{{Key: "locale", Value: "en"}},
			[]string{"10", "9", "100", "2"}, []string{"10", "100", "2", "9"}},
		{"fr backwards", bson.D{{Key: "locale", Value: "fr"}, {Key: "backwards", Value: true}},
			[]string{"cote", "côte", "coté", "côté"}, []string{"cote", "côte", "coté", "côté"}},
		{"fr forwards", bson.D{{Key: "locale", Value: "fr"}},
			[]string{"cote", "côte", "coté", "côté"}, []string{"cote", "coté", "côte", "côté"}},
		{"de umlaut", bson.D{{Key: "locale", Value: "de"}},
			[]string{"z", "ä", "a", "b"}, []string{"a", "ä", "b", "z"}},
		{"sv umlaut after z", bson.D{{Key: "locale", Value: "sv"}},
			[]string{"z", "ä", "a", "ö", "å"}, []string{"a", "z", "å", "ä", "ö"}},
		{"en shifted ignores punctuation", bson.D{{Key: "locale", Value: "en"}, {Key: "alternate", Value: "shifted"}, {Key: "strength", Value: 3}},
			[]string{"b c", "a-d", "ab"}, []string{"ab", "a-d", "b c"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := mustCollator(t, tc.doc)
			got := slices.Clone(tc.in)
			slices.SortStableFunc(got, c.CompareString)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("CompareString order %q, want %q", got, tc.want)
			}
			got = slices.Clone(tc.in)
			slices.SortStableFunc(got, func(a, b string) int { return strings.Compare(c.Key(a), c.Key(b)) })
			if !slices.Equal(got, tc.want) {
				t.Fatalf("Key order %q, want %q", got, tc.want)
			}
		})
	}
}

// TestStrengthEquality: strength 1 ignores case and accents, 2 case only.
func TestStrengthEquality(t *testing.T) {
	cases := []struct {
		strength int32
		a, b     string
		equal    bool
	}{
		{1, "a", "A", true}, {1, "a", "á", true}, {1, "a", "b", false},
		{2, "a", "A", true}, {2, "a", "á", false},
		{3, "a", "A", false}, {3, "a", "a", true},
	}
	for _, tc := range cases {
		c := mustCollator(t, bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: tc.strength}})
		if got := c.CompareString(tc.a, tc.b) == 0; got != tc.equal {
			t.Errorf("strength %d: %q == %q is %v, want %v", tc.strength, tc.a, tc.b, got, tc.equal)
		}
		if got := c.Key(tc.a) == c.Key(tc.b); got != tc.equal {
			t.Errorf("strength %d: Key(%q) == Key(%q) is %v, want %v", tc.strength, tc.a, tc.b, got, tc.equal)
		}
	}
}

func TestNilCollatorIsBinary(t *testing.T) {
	var c *Collator
	if c.CompareString("a", "B") <= 0 || c.Key("x") != "x" || c.Spec() != nil {
		t.Fatal("nil collator is not the simple collation")
	}
}
