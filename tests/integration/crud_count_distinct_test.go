package integration

import (
	"reflect"
	"sort"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

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
