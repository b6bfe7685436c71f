package changestream

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// testCursorCommands: a stream's getMore honours batchSize and carries
// postBatchResumeToken; killCursors ends the cursor (CursorNotFound after).
func testCursorCommands(t *testing.T, cl *mongo.Client) {
	ctx := ctxT(t)
	db := cl.Database("cs15")
	var open struct {
		Cursor struct {
			ID  int64    `bson:"id"`
			PBR bson.Raw `bson:"postBatchResumeToken"`
		} `bson:"cursor"`
	}
	must(t, db.RunCommand(ctx, bson.D{{Key: "aggregate", Value: "c"},
		{Key: "pipeline", Value: bson.A{bson.D{{Key: "$changeStream", Value: bson.D{}}}}},
		{Key: "cursor", Value: bson.D{}}}).Decode(&open))
	if open.Cursor.ID == 0 || open.Cursor.PBR == nil {
		t.Fatalf("aggregate reply: id %d, postBatchResumeToken %v", open.Cursor.ID, open.Cursor.PBR)
	}
	for i := 0; i < 5; i++ {
		_, err := db.Collection("c").InsertOne(ctx, bson.D{{Key: "i", Value: i}})
		must(t, err)
	}
	var more struct {
		Cursor struct {
			NextBatch []bson.Raw `bson:"nextBatch"`
			PBR       bson.Raw   `bson:"postBatchResumeToken"`
		} `bson:"cursor"`
	}
	must(t, db.RunCommand(ctx, bson.D{{Key: "getMore", Value: open.Cursor.ID}, {Key: "collection", Value: "c"},
		{Key: "batchSize", Value: 2}, {Key: "maxTimeMS", Value: 2000}}).Decode(&more))
	if len(more.Cursor.NextBatch) != 2 {
		t.Fatalf("getMore batchSize 2: %d events", len(more.Cursor.NextBatch))
	}
	if got, want := more.Cursor.PBR.Lookup("_data"), more.Cursor.NextBatch[1].Lookup("_id", "_data"); !got.Equal(want) {
		t.Errorf("postBatchResumeToken %v, want the last event's _id %v", got, want)
	}
	var killed struct {
		Killed []int64 `bson:"cursorsKilled"`
	}
	must(t, db.RunCommand(ctx, bson.D{{Key: "killCursors", Value: "c"}, {Key: "cursors", Value: bson.A{open.Cursor.ID}}}).Decode(&killed))
	if len(killed.Killed) != 1 {
		t.Errorf("killCursors: %v", killed)
	}
	err := db.RunCommand(ctx, bson.D{{Key: "getMore", Value: open.Cursor.ID}, {Key: "collection", Value: "c"}}).Err()
	if codeOf(err) != 43 {
		t.Errorf("getMore after killCursors: %v, want CursorNotFound (43)", err)
	}
}
