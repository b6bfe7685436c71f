package changestream

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// testDDLEvents: a rename ends the source collection's stream with
// rename (to) + invalidate; a database stream sees drop and dropDatabase
// then invalidate; with showExpandedEvents, create and createIndexes.
func testDDLEvents(t *testing.T, cl *mongo.Client) {
	ctx := ctxT(t)
	db := cl.Database("cs17")
	must(t, db.CreateCollection(ctx, "src"))
	cs := watch(t, db.Collection("src"), nil)
	dbs, err := db.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetShowExpandedEvents(true))
	must(t, err)
	defer dbs.Close(ctx)
	must(t, cl.Database("admin").RunCommand(ctx, bson.D{{Key: "renameCollection", Value: "cs17.src"},
		{Key: "to", Value: "cs17.dst"}}).Err())
	evs := expectOps(t, cs, "rename", "invalidate")
	if to, _ := evs[0]["to"].(bson.M); to["db"] != "cs17" || to["coll"] != "dst" {
		t.Errorf("rename event: %v", evs[0])
	}
	_, err = db.Collection("dst").Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "x", Value: 1}}})
	must(t, err)
	must(t, db.CreateCollection(ctx, "other"))
	must(t, db.Drop(ctx))
	got := expectOps(t, dbs, "rename", "createIndexes", "create")
	if got[1]["operationDescription"] == nil {
		t.Errorf("createIndexes without operationDescription: %v", got[1])
	}
	// dropDatabase drops each collection (a drop event each), then the
	// database: the stream ends with dropDatabase and invalidate.
	for {
		ev := next(t, dbs)
		if ev["operationType"] == "drop" {
			continue
		}
		if ev["operationType"] != "dropDatabase" {
			t.Fatalf("database stream: %v, want drop or dropDatabase", ev)
		}
		break
	}
	expectOps(t, dbs, "invalidate")
}
