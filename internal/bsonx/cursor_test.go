package bsonx

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestCursorBatch(t *testing.T) {
	doc := bson.D{{Key: "a", Value: 1}}
	for _, tc := range []struct {
		name  string
		reply bson.D
		want  int
	}{
		{"first", bson.D{{Key: "cursor", Value: bson.D{{Key: "firstBatch", Value: bson.A{doc, doc}}}}}, 2},
		{"next", bson.D{{Key: "cursor", Value: bson.D{{Key: "nextBatch", Value: bson.A{doc, 5}}}}}, 1},
		{"no cursor", bson.D{{Key: "ok", Value: 1}}, 0},
	} {
		if got := CursorBatch(tc.reply); len(got) != tc.want {
			t.Errorf("%s: %v", tc.name, got)
		}
	}
}
