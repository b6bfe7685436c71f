package integration

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestCurrentOpIdleCursors: $currentOp {idleCursors: true} lists an open
// cursor no getMore is using as {type: "idleCursor", cursor: {cursorId,
// ...}}; without the option it is not listed.
func TestCurrentOpIdleCursors(t *testing.T) {
	_, c := startServer(t)
	ctx := tctx(t, 30*opTimeout)
	coll := c.Database("idle").Collection("c")
	if _, err := coll.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "_id", Value: 3}}}); err != nil {
		t.Fatal(err)
	}
	var res bson.Raw
	if err := c.Database("idle").RunCommand(ctx, bson.D{{Key: "find", Value: "c"}, {Key: "batchSize", Value: 1}}).Decode(&res); err != nil {
		t.Fatal(err)
	}
	id := res.Lookup("cursor", "id").Int64()
	idle := func(spec bson.D) int {
		cur, err := c.Database("admin").Aggregate(ctx, bson.A{bson.D{{Key: "$currentOp", Value: spec}},
			bson.D{{Key: "$match", Value: bson.D{{Key: "type", Value: "idleCursor"}, {Key: "cursor.cursorId", Value: id}, {Key: "ns", Value: "idle.c"}}}}})
		if err != nil {
			t.Fatalf("$currentOp %v: %v", spec, err)
		}
		var docs []bson.M
		if err := cur.All(ctx, &docs); err != nil {
			t.Fatal(err)
		}
		return len(docs)
	}
	if n := idle(bson.D{{Key: "idleCursors", Value: true}}); n != 1 {
		t.Fatalf("$currentOp {idleCursors: true} lists the open cursor %d times, want 1", n)
	}
	if n := idle(bson.D{}); n != 0 {
		t.Fatalf("$currentOp {} lists an idle cursor (%d)", n)
	}
}
