package integration

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// TestUpdatePipelineUnknownStage: an update whose pipeline names a stage
// that does not exist fails the whole command with 40324, as mongod's
// (which parses the pipelines with the command); it was one write error.
func TestUpdatePipelineUnknownStage(t *testing.T) {
	_, c := startServer(t)
	ctx := tctx(t, opTimeout)
	db := c.Database("upd")
	if _, err := db.Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	cmd := bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{
		bson.D{{Key: "q", Value: bson.D{{Key: "x", Value: 1}}}, {Key: "u", Value: bson.A{bson.D{{Key: "$invalidOperator", Value: true}}}}},
	}}}
	err := db.RunCommand(ctx, cmd).Err()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 40324 {
		t.Fatalf("update with an unknown pipeline stage: %v, want command error 40324", err)
	}
	// A known stage an update may not use stays the statement's error.
	cmd[1].Value = bson.A{bson.D{{Key: "q", Value: bson.D{}}, {Key: "u", Value: bson.A{bson.D{{Key: "$match", Value: bson.D{}}}}}}}
	err = db.RunCommand(ctx, cmd).Err()
	var we mongo.WriteException
	if !errors.As(err, &we) || len(we.WriteErrors) != 1 {
		t.Fatalf("update with $match in its pipeline: %v, want ok with one write error", err)
	}
}
