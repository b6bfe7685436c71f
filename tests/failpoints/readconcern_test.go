package failpoints

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestOutLinearizable: $out and $merge refuse a linearizable read concern
// (InvalidOptions), as mongod does; majority is accepted.
func TestOutLinearizable(t *testing.T) {
	c, _ := oneMemberSet(t)
	ctx := context.Background()
	db := c.Database("fp")
	if _, err := db.Collection("src").InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	agg := func(stage bson.D, level string) error {
		return db.RunCommand(ctx, bson.D{{Key: "aggregate", Value: "src"},
			{Key: "pipeline", Value: bson.A{stage}}, {Key: "cursor", Value: bson.D{}},
			{Key: "readConcern", Value: bson.D{{Key: "level", Value: level}}}}).Err()
	}
	out := bson.D{{Key: "$out", Value: "dst"}}
	merge := bson.D{{Key: "$merge", Value: bson.D{{Key: "into", Value: "dst2"}}}}
	for _, stage := range []bson.D{out, merge} {
		if err := agg(stage, "linearizable"); !isCode(err, 72) {
			t.Errorf("%s with linearizable: %v, want InvalidOptions (72)", stage[0].Key, err)
		}
		if err := agg(stage, "majority"); err != nil {
			t.Errorf("%s with majority: %v", stage[0].Key, err)
		}
	}
}
