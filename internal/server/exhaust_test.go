package server

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestExhaustible(t *testing.T) {
	tests := []struct {
		cmd  bson.D
		want bool
	}{
		{bson.D{{Key: "getMore", Value: int64(1)}, {Key: "collection", Value: "c"}}, true},
		{bson.D{{Key: "find", Value: "c"}}, false},
		{bson.D{{Key: "hello", Value: 1}}, false},
	}
	for _, tt := range tests {
		b, _ := bson.Marshal(tt.cmd)
		if got := exhaustible(b); got != tt.want {
			t.Errorf("%v: %v, want %v", tt.cmd, got, tt.want)
		}
	}
}

func TestCursorOpen(t *testing.T) {
	cursor := func(id any) bson.E {
		return bson.E{Key: "cursor", Value: bson.D{{Key: "nextBatch", Value: bson.A{}}, {Key: "id", Value: id}}}
	}
	tests := []struct {
		name  string
		reply bson.D
		want  bool
	}{
		{"open", bson.D{cursor(int64(7)), {Key: "ok", Value: 1.0}}, true},
		{"exhausted", bson.D{cursor(int64(0)), {Key: "ok", Value: 1.0}}, false},
		{"error", bson.D{{Key: "ok", Value: 0.0}, {Key: "code", Value: int32(43)}}, false},
		{"no cursor", bson.D{{Key: "ok", Value: 1.0}}, false},
	}
	for _, tt := range tests {
		b, _ := bson.Marshal(tt.reply)
		if got := cursorOpen(b); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
