package failpoints

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// TestOutOnSecondary: an aggregate ending in $out or $merge sent to a
// secondary with a secondary read preference runs (MongoDB 5.0+): the
// secondary reads, the primary writes; with a primary read preference
// the secondary refuses it.
func TestOutOnSecondary(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	c, secondary := twoMembers(ctx, t, "rsout")
	src := c.Database("fp").Collection("src", options.Collection().SetWriteConcern(&writeconcern.WriteConcern{W: 2}))
	if _, err := src.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "_id", Value: 3}}}); err != nil {
		t.Fatal(err)
	}
	sdb := secondary.Database("fp")
	agg := func(last bson.D, mode string) error {
		return sdb.RunCommand(ctx, bson.D{{Key: "aggregate", Value: "src"},
			{Key: "pipeline", Value: bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$gt", Value: 1}}}}}}, last}},
			{Key: "cursor", Value: bson.D{}}, {Key: "$readPreference", Value: bson.D{{Key: "mode", Value: mode}}}}).Err()
	}
	if err := agg(bson.D{{Key: "$out", Value: "dst"}}, "secondaryPreferred"); err != nil {
		t.Fatalf("$out on the secondary: %v", err)
	}
	if err := agg(bson.D{{Key: "$merge", Value: bson.D{{Key: "into", Value: "dst2"}}}}, "secondary"); err != nil {
		t.Fatalf("$merge on the secondary: %v", err)
	}
	for _, coll := range []string{"dst", "dst2"} {
		n, err := c.Database("fp").Collection(coll).CountDocuments(ctx, bson.D{})
		if err != nil || n != 2 {
			t.Errorf("%s on the primary: %d documents (%v), want 2", coll, n, err)
		}
	}
	testOutOnSecondaryView(ctx, t, c, sdb)
	if err := agg(bson.D{{Key: "$out", Value: "dst3"}}, "primary"); !isCode(err, 13435) {
		t.Errorf("$out on the secondary with a primary read preference: %v, want NotPrimaryNoSecondaryOk (13435)", err)
	}
}

// testOutOnSecondaryView: a $out on a view sent to a secondary reads the
// view's source through the view's pipeline (it once read the view's own,
// empty, namespace and wrote an empty target).
func testOutOnSecondaryView(ctx context.Context, t *testing.T, c *mongo.Client, sdb *mongo.Database) {
	t.Helper()
	view := bson.D{{Key: "create", Value: "v"}, {Key: "viewOn", Value: "src"},
		{Key: "pipeline", Value: bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$ne", Value: 2}}}}}}}},
		{Key: "writeConcern", Value: bson.D{{Key: "w", Value: 2}}}}
	if err := c.Database("fp").RunCommand(ctx, view).Err(); err != nil {
		t.Fatal(err)
	}
	err := sdb.RunCommand(ctx, bson.D{{Key: "aggregate", Value: "v"},
		{Key: "pipeline", Value: bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$gt", Value: 1}}}}}},
			bson.D{{Key: "$out", Value: "dstv"}}}},
		{Key: "cursor", Value: bson.D{}}, {Key: "$readPreference", Value: bson.D{{Key: "mode", Value: "secondary"}}}}).Err()
	if err != nil {
		t.Fatalf("$out of a view on the secondary: %v", err)
	}
	var got []bson.M
	cur, err := c.Database("fp").Collection("dstv").Find(ctx, bson.D{})
	if err == nil {
		err = cur.All(ctx, &got)
	}
	if err != nil || len(got) != 1 || got[0]["_id"] != int32(3) {
		t.Errorf("$out of a view on the secondary wrote %v (%v), want [{_id: 3}]", got, err)
	}
}
