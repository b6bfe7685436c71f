package catalog

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestPreImageFields: a pre-image goes into the oplog entry only on a
// collection with changeStreamPreAndPostImages enabled, and only while
// the entry stays under 16 MB.
func TestPreImageFields(t *testing.T) {
	on := bson.D{{Key: "changeStreamPreAndPostImages", Value: bson.D{{Key: "enabled", Value: true}}}}
	off := bson.D{{Key: "changeStreamPreAndPostImages", Value: bson.D{{Key: "enabled", Value: false}}}}
	old := bson.D{{Key: "_id", Value: 1}}
	tests := []struct {
		opts       bson.D
		size, rest int
		want       bool
	}{
		{on, 100, 100, true},
		{nil, 100, 100, false},
		{off, 100, 100, false},
		{on, 10 << 20, 10 << 20, false},
		{on, 16<<20 - 8*1024, 1024, true},
	}
	for _, tt := range tests {
		got := preImageFields(&Collection{Options: tt.opts}, old, tt.size, tt.rest) != nil
		if got != tt.want {
			t.Errorf("options %v, sizes %d+%d: kept %v, want %v", tt.opts, tt.size, tt.rest, got, tt.want)
		}
	}
}
