package integration

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestCappedTailablePositionLost: when the last document a tailable
// cursor returned is evicted, its next getMore fails with
// CappedPositionLost (136) and the cursor is closed, as MongoDB's (it
// once went on with the newer documents, hiding the ones it missed).
func TestCappedTailablePositionLost(t *testing.T) {
	_, c := startServer(t)
	ctx := tctx(t, 10*opTimeout)
	db := c.Database("capped")
	if err := db.CreateCollection(ctx, "lost", options.CreateCollection().SetCapped(true).SetSizeInBytes(1000).SetMaxDocuments(3)); err != nil {
		t.Fatal(err)
	}
	coll := db.Collection("lost")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetCursorType(options.Tailable))
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close(ctx)
	if !cur.Next(ctx) || cur.Current.Lookup("_id").Int32() != 1 {
		t.Fatalf("first document: %v (%v)", cur.Current, cur.Err())
	}
	// A getMore with the position still there returns nothing and keeps
	// the cursor open.
	if cur.TryNext(ctx) || cur.Err() != nil || cur.ID() == 0 {
		t.Fatalf("idle getMore: next document %v, err %v, id %d", cur.Current, cur.Err(), cur.ID())
	}
	docs := []any{bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "_id", Value: 3}}, bson.D{{Key: "_id", Value: 4}}}
	if _, err := coll.InsertMany(ctx, docs); err != nil { // evicts _id 1
		t.Fatal(err)
	}
	if cur.TryNext(ctx) {
		t.Fatalf("getMore after the position was evicted returned %v", cur.Current)
	}
	var ce mongo.CommandError
	if !errors.As(cur.Err(), &ce) || ce.Code != 136 {
		t.Fatalf("getMore after the position was evicted: %v, want CappedPositionLost (136)", cur.Err())
	}
}
