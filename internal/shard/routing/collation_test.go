package routing

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestForCollation(t *testing.T) {
	filter := bson.D{{Key: "sk", Value: "a"}, {Key: "n", Value: bson.D{{Key: "$gt", Value: 3}}},
		{Key: "$or", Value: bson.A{bson.D{{Key: "x", Value: "b"}}}}}
	en := bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 2}}
	if got := ForCollation(filter, en); len(got) != 1 || got[0].Key != "n" {
		t.Errorf("under en/2: %v, want only the clause without strings", got)
	}
	for _, simple := range []any{nil, bson.D{{Key: "locale", Value: "simple"}}} {
		if got := ForCollation(filter, simple); len(got) != 3 {
			t.Errorf("under %v: %v, want the whole filter", simple, got)
		}
	}
}
