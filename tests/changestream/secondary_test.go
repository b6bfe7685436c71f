package changestream

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
)

// testSecondaryStream: a stream opened on a secondary
// (readPreference secondary) sees the primary's writes once they are
// majority-committed and replicated there.
func testSecondaryStream(t *testing.T, cl *mongo.Client) {
	ctx := ctxT(t)
	sec := cl.Database("cs14", options.Database().SetReadPreference(readpref.Secondary())).Collection("c")
	cs := watch(t, sec, nil)
	coll := cl.Database("cs14").Collection("c")
	for i := 1; i <= 3; i++ {
		_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}})
		must(t, err)
	}
	for want := int32(1); want <= 3; want++ {
		if ev := next(t, cs); ev["documentKey"].(bson.M)["_id"] != want {
			t.Fatalf("secondary stream: %v, want _id %d", ev, want)
		}
	}
}
