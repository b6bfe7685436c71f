package integration

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

func testFindOneAndX(t *testing.T, coll *mongo.Collection) {
	ctx := tctx(t, opTimeout)
	seedDocs(t, coll, 3)
	id1 := bson.D{{Key: "_id", Value: int32(1)}}
	var before, after, repl, del bson.D
	inc := bson.D{{Key: "$inc", Value: bson.D{{Key: "a", Value: int32(10)}}}}
	if err := coll.FindOneAndUpdate(ctx, id1, inc).Decode(&before); err != nil {
		t.Fatalf("findOneAndUpdate: %v", err)
	}
	wantDoc(t, "FOAU default returns before", before, bson.D{{Key: "_id", Value: int32(1)}, {Key: "a", Value: int32(1)}, {Key: "b", Value: "s1"}})
	err := coll.FindOneAndUpdate(ctx, id1, inc, options.FindOneAndUpdate().SetReturnDocument(options.After).
		SetProjection(bson.D{{Key: "a", Value: 1}})).Decode(&after)
	if err != nil {
		t.Fatalf("findOneAndUpdate after: %v", err)
	}
	wantDoc(t, "FOAU after+projection", after, bson.D{{Key: "_id", Value: int32(1)}, {Key: "a", Value: int32(21)}})
	err = coll.FindOneAndReplace(ctx, bson.D{{Key: "b", Value: "s2"}}, bson.D{{Key: "r", Value: true}},
		options.FindOneAndReplace().SetReturnDocument(options.After)).Decode(&repl)
	if err != nil {
		t.Fatalf("findOneAndReplace: %v", err)
	}
	wantDoc(t, "FOAR after", repl, bson.D{{Key: "_id", Value: int32(2)}, {Key: "r", Value: true}})
	err = coll.FindOneAndDelete(ctx, bson.D{}, options.FindOneAndDelete().SetSort(bson.D{{Key: "_id", Value: -1}})).Decode(&del)
	if err != nil {
		t.Fatalf("findOneAndDelete: %v", err)
	}
	wantDoc(t, "FOAD sorted desc", del, bson.D{{Key: "_id", Value: int32(3)}, {Key: "a", Value: int32(0)}, {Key: "b", Value: "s3"}})
	if findOne(t, coll, int32(3)) != nil {
		t.Errorf("FOAD did not delete _id 3")
	}
	err = coll.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: "none"}}, inc).Err()
	if !errors.Is(err, mongo.ErrNoDocuments) {
		t.Errorf("FOAU on no match: got %v, want ErrNoDocuments", err)
	}
	var up bson.D
	err = coll.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: int32(7)}}, inc,
		options.FindOneAndUpdate().SetUpsert(true).SetReturnDocument(options.After)).Decode(&up)
	if err != nil {
		t.Fatalf("FOAU upsert: %v", err)
	}
	wantDoc(t, "FOAU upsert after", up, bson.D{{Key: "_id", Value: int32(7)}, {Key: "a", Value: int32(10)}})
}
