package failpoints

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestRetriedFindAndModifyImage: when the onPrimaryTransactionalWrite
// fail point loses the first attempt's reply, the retried findAndModify
// answers the document that attempt returned (its pre-image here), not
// the current one, and the update is applied once.
func TestRetriedFindAndModifyImage(t *testing.T) {
	c, n := oneMemberSet(t)
	ctx := context.Background() // no deadline: the driver retries once (no CSOT)
	coll := c.Database("fp").Collection("image")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: 11}}); err != nil {
		t.Fatal(err)
	}
	failPoint(t, c, "onPrimaryTransactionalWrite", bson.D{{Key: "times", Value: 1}}, nil)
	var before bson.M
	err := coll.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "x", Value: 1}}}}).Decode(&before)
	if err != nil {
		t.Fatalf("findOneAndUpdate: %v", err)
	}
	if before["x"] != int32(11) || n.fams.Load() != 2 {
		t.Errorf("retried findOneAndUpdate returned %v after %d attempts, want x 11 after 2", before, n.fams.Load())
	}
	var now bson.M
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Decode(&now); err != nil || now["x"] != int32(12) {
		t.Errorf("document after the retry: %v %v, want x 12 (updated once)", now, err)
	}
}
