package changestream

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// testGetMoreFailPoint: failGetMoreAfterCursorCheckout fails a getMore
// with its errorCode; on a change stream's cursor a resumable code
// carries ResumableChangeStreamError (drivers resume on it), another code
// does not, and neither does a resumable code on another cursor.
func testGetMoreFailPoint(t *testing.T, cl *mongo.Client) {
	ctx := ctxT(t)
	db := cl.Database("cs13")
	must(t, db.CreateCollection(ctx, "c"))
	_, err := db.Collection("c").InsertMany(ctx, []any{bson.D{{Key: "x", Value: 1}}, bson.D{{Key: "x", Value: 2}}})
	must(t, err)
	open := func(pipeline bson.A) int64 {
		var reply struct {
			Cursor struct{ ID int64 } `bson:"cursor"`
		}
		must(t, db.RunCommand(ctx, bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: pipeline},
			{Key: "cursor", Value: bson.D{{Key: "batchSize", Value: 0}}}}).Decode(&reply))
		return reply.Cursor.ID
	}
	stream := open(bson.A{bson.D{{Key: "$changeStream", Value: bson.D{}}}})
	plain := open(bson.A{})
	for _, tc := range []struct {
		cursor int64
		code   int32
		label  bool
	}{{stream, 11602, true}, {stream, 2, false}, {plain, 11602, false}} {
		must(t, db.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "configureFailPoint", Value: "failGetMoreAfterCursorCheckout"},
			{Key: "mode", Value: bson.D{{Key: "times", Value: int32(1)}}},
			{Key: "data", Value: bson.D{{Key: "errorCode", Value: tc.code}}}}).Err())
		err := db.RunCommand(ctx, bson.D{{Key: "getMore", Value: tc.cursor}, {Key: "collection", Value: "c"},
			{Key: "maxTimeMS", Value: 100}}).Err()
		var ce mongo.CommandError
		if !errors.As(err, &ce) || ce.Code != tc.code || ce.HasErrorLabel("ResumableChangeStreamError") != tc.label {
			t.Errorf("getMore with the fail point (code %d, stream %v): %v, want that code, labelled %v",
				tc.code, tc.cursor == stream, err, tc.label)
		}
	}
}
