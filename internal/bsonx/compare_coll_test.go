package bsonx

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// foldCase is a collator that ignores ASCII case.
type foldCase struct{}

func (foldCase) CompareString(a, b string) int {
	return strings.Compare(strings.ToLower(a), strings.ToLower(b))
}

func TestCompareCollReachesNestedStrings(t *testing.T) {
	cases := []struct {
		a, b any
		want int
	}{
		{"a", "A", 0},
		{bson.A{"x", "B"}, bson.A{"X", "b"}, 0},
		{bson.D{{Key: "k", Value: "Q"}}, bson.D{{Key: "k", Value: "q"}}, 0},
		{bson.D{{Key: "K", Value: "q"}}, bson.D{{Key: "k", Value: "q"}}, -1}, // field names stay binary
		{"a", int32(1), 1}, // type order unchanged
		{bson.JavaScript("A"), bson.JavaScript("a"), -1}, // only strings collate
	}
	for _, tc := range cases {
		if got := CompareColl(tc.a, tc.b, foldCase{}); got != tc.want {
			t.Errorf("CompareColl(%v, %v) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
	if Compare("a", "A") == 0 {
		t.Error("Compare without a collator must stay binary")
	}
}
