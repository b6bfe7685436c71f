package changestream

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// testSplitLargeEvent: with $changeStreamSplitLargeEvent an event over
// 16 MB (an updateLookup fullDocument plus a large updateDescription)
// arrives as fragments, each with splitEvent {fragment, of}; resuming
// after the first fragment returns the second.
func testSplitLargeEvent(t *testing.T, cl *mongo.Client) {
	ctx := ctxT(t)
	coll := cl.Database("cs16").Collection("c")
	_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: strings.Repeat("a", 9<<20)}})
	must(t, err)
	split := mongo.Pipeline{{{Key: "$changeStreamSplitLargeEvent", Value: bson.D{}}}}
	cs := watch(t, coll, split, options.ChangeStream().SetFullDocument(options.UpdateLookup))
	_, err = coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "b", Value: strings.Repeat("b", 6<<20)}}}})
	must(t, err)
	first, second := next(t, cs), next(t, cs)
	for i, ev := range []bson.M{first, second} {
		se, _ := ev["splitEvent"].(bson.M)
		if se["fragment"] != int32(i+1) || se["of"] != int32(2) {
			t.Fatalf("fragment %d: splitEvent %v", i+1, ev["splitEvent"])
		}
	}
	if first["fullDocument"] == nil || second["updateDescription"] == nil {
		t.Errorf("fragments split the fields unexpectedly: first has %d fields, second %d", len(first), len(second))
	}
	resumed := watch(t, coll, split, options.ChangeStream().SetFullDocument(options.UpdateLookup).SetResumeAfter(first["_id"]))
	if ev := next(t, resumed); ev["splitEvent"].(bson.M)["fragment"] != int32(2) {
		t.Errorf("resume after the first fragment: %v", ev["splitEvent"])
	}
	if _, err := coll.Watch(ctx, mongo.Pipeline{split[0], {{Key: "$match", Value: bson.D{}}}}); codeOf(err) != 40601 {
		t.Errorf("$changeStreamSplitLargeEvent not last: %v, want 40601", err)
	}
}
