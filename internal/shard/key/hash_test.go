package key

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Hash is bsonhash's (golden-tested there against MongoDB's values); two
// of those vectors pin that the shard key uses it with seed 0.
func TestHashIsMongoDBs(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want int64
	}{
		{int32(42), -944302157085130861},
		{bson.D{{Key: "a", Value: "abc"}, {Key: "b", Value: int64(123)}}, 4771603801758380216},
	} {
		if got, err := Hash(tc.v); err != nil || got != tc.want {
			t.Errorf("Hash(%v) = %d, %v; want %d", tc.v, got, err, tc.want)
		}
	}
}
