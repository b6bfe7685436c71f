package integration

import (
	"errors"
	"reflect"
	"sort"
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

func testCounts(t *testing.T, coll *mongo.Collection) {
	ctx := tctx(t, opTimeout)
	seedDocs(t, coll, 20)
	n, err := coll.CountDocuments(ctx, bson.D{{Key: "a", Value: int32(2)}})
	if err != nil || n != 7 {
		t.Errorf("countDocuments a=2 = %d, %v; want 7", n, err)
	}
	n, err = coll.CountDocuments(ctx, bson.D{}, options.Count().SetSkip(5).SetLimit(10))
	if err != nil || n != 10 {
		t.Errorf("countDocuments skip 5 limit 10 = %d, %v; want 10", n, err)
	}
	n, err = coll.CountDocuments(ctx, bson.D{}, options.Count().SetSkip(15).SetLimit(10))
	if err != nil || n != 5 {
		t.Errorf("countDocuments skip 15 limit 10 = %d, %v; want 5", n, err)
	}
	n, err = coll.EstimatedDocumentCount(ctx)
	if err != nil || n != 20 {
		t.Errorf("estimatedDocumentCount = %d, %v; want 20", n, err)
	}
	n, err = coll.Database().Collection("does_not_exist").EstimatedDocumentCount(ctx)
	if err != nil || n != 0 {
		t.Errorf("estimatedDocumentCount on missing collection = %d, %v; want 0, nil", n, err)
	}
}

func testDistinct(t *testing.T, coll *mongo.Collection) {
	ctx := tctx(t, opTimeout)
	docs := []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: bson.A{"x", "y"}}, {Key: "k", Value: 1}},
		bson.D{{Key: "_id", Value: 2}, {Key: "t", Value: "x"}, {Key: "k", Value: 1}},
		bson.D{{Key: "_id", Value: 3}, {Key: "t", Value: "z"}, {Key: "k", Value: 2}},
		bson.D{{Key: "_id", Value: 4}, {Key: "k", Value: 1}},
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatalf("insert: %v", err)
	}
	var vals []string
	if err := coll.Distinct(ctx, "t", bson.D{}).Decode(&vals); err != nil {
		t.Fatalf("distinct: %v", err)
	}
	sort.Strings(vals)
	if !reflect.DeepEqual(vals, []string{"x", "y", "z"}) {
		t.Errorf("distinct t = %v, want [x y z] (arrays unwound, missing skipped)", vals)
	}
	vals = nil
	if err := coll.Distinct(ctx, "t", bson.D{{Key: "k", Value: 1}}).Decode(&vals); err != nil {
		t.Fatalf("distinct filtered: %v", err)
	}
	sort.Strings(vals)
	if !reflect.DeepEqual(vals, []string{"x", "y"}) {
		t.Errorf("distinct t where k=1 = %v, want [x y]", vals)
	}
}

func testCRUDErrorCodes(t *testing.T, coll *mongo.Collection) {
	ctx := tctx(t, opTimeout)
	seedDocs(t, coll, 2)
	db := coll.Database()
	_, err := coll.Find(ctx, bson.D{{Key: "a", Value: bson.D{{Key: "$in", Value: int32(5)}}}})
	wantCode(t, err, 2, "$in with non-array (BadValue)")
	_, err = coll.Find(ctx, bson.D{{Key: "a", Value: bson.D{{Key: "$foo", Value: 1}}}})
	wantCode(t, err, 2, "unknown query operator (BadValue)")
	_, err = coll.UpdateOne(ctx, bson.D{}, bson.D{{Key: "$foo", Value: bson.D{{Key: "a", Value: 1}}}})
	wantCode(t, err, 9, "unknown update modifier (FailedToParse)")
	_, err = coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: int32(1)}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "b", Value: 1}}}})
	wantCode(t, err, 14, "$inc on a string (TypeMismatch)")
	err = db.RunCommand(ctx, bson.D{{Key: "find", Value: coll.Name()}, {Key: "filter", Value: "str"}}).Err()
	wantCode(t, err, 14, "find filter of type string (TypeMismatch)")
	err = db.RunCommand(ctx, bson.D{{Key: "noSuchCommandX", Value: 1}}).Err()
	wantCode(t, err, 59, "unknown command (CommandNotFound)")
	err = db.RunCommand(ctx, bson.D{{Key: "listIndexes", Value: "no_such_coll"}}).Err()
	wantCode(t, err, 26, "listIndexes on missing collection (NamespaceNotFound)")
	err = db.RunCommand(ctx, bson.D{{Key: "dropIndexes", Value: "no_such_coll"}, {Key: "index", Value: "a_1"}}).Err()
	wantCode(t, err, 26, "dropIndexes on missing collection (NamespaceNotFound)")
}
