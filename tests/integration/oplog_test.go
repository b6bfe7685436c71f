package integration

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// newestOplogTS returns the ts of the newest local.oplog.rs entry.
func newestOplogTS(t *testing.T, oplog *mongo.Collection) bson.Timestamp {
	t.Helper()
	var last bson.D
	err := oplog.FindOne(tctx(t, opTimeout), bson.D{}, options.FindOne().SetSort(bson.D{{Key: "$natural", Value: -1}})).Decode(&last)
	if err != nil {
		t.Fatalf("newest oplog entry: %v", err)
	}
	ts, ok := field(last, "ts").(bson.Timestamp)
	if !ok {
		t.Fatalf("oplog entry without a timestamp ts: %s", asJSON(last))
	}
	return ts
}

func tailFrom(ctx context.Context, oplog *mongo.Collection, op string, ts bson.Timestamp) (*mongo.Cursor, error) {
	return oplog.Find(ctx, bson.D{{Key: "ts", Value: bson.D{{Key: op, Value: ts}}}},
		options.Find().SetCursorType(options.TailableAwait).SetMaxAwaitTime(500*time.Millisecond))
}

// testTailOplogEmptyFind: MongoDB answers the initial find of a tailable
// awaitData cursor at once, even with an empty batch; awaitData only makes
// getMore wait.
func testTailOplogEmptyFind(t *testing.T, c *mongo.Client) {
	oplog := c.Database("local").Collection("oplog.rs")
	ts := newestOplogTS(t, oplog)
	cur, err := tailFrom(tctx(t, 3*time.Second), oplog, "$gt", ts)
	if err != nil {
		t.Fatalf("tailable awaitData find {ts: {$gt: newest}} did not return within 3s: %v", err)
	}
	defer cur.Close(tctx(t, opTimeout))
	if cur.ID() == 0 {
		t.Errorf("tailable cursor on an idle oplog was closed (id 0); it must stay open")
	}
}

// testTailOplog tails local.oplog.rs from the newest entry, inserts a
// document, and requires its insert entry to arrive within a bounded wait.
func testTailOplog(t *testing.T, c *mongo.Client) {
	ctx := tctx(t, 15*time.Second)
	oplog := c.Database("local").Collection("oplog.rs")
	cur, err := tailFrom(ctx, oplog, "$gte", newestOplogTS(t, oplog))
	if err != nil {
		t.Fatalf("tailable find: %v", err)
	}
	defer cur.Close(tctx(t, opTimeout))
	marker := bson.NewObjectID()
	coll := c.Database("cur").Collection("tailed")
	go func() {
		time.Sleep(300 * time.Millisecond) // let the cursor block in awaitData first
		_, _ = coll.InsertOne(ctx, bson.D{{Key: "_id", Value: marker}, {Key: "v", Value: 1}})
	}()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if !cur.TryNext(ctx) {
			if cur.Err() != nil || cur.ID() == 0 {
				t.Fatalf("tailable cursor died: err %v, id %d", cur.Err(), cur.ID())
			}
			continue
		}
		var e bson.D
		if err := cur.Decode(&e); err != nil {
			t.Fatalf("decode oplog entry: %v", err)
		}
		o, _ := field(e, "o").(bson.D)
		if field(e, "ns") == "cur.tailed" && field(o, "_id") == marker {
			if field(e, "op") != "i" {
				t.Errorf("oplog entry op = %v, want i", field(e, "op"))
			}
			return
		}
	}
	t.Fatalf("tailable awaitData cursor did not deliver the insert of %v within 10s", marker)
}
