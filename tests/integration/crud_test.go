package integration

import (
	"errors"
	"reflect"
	"strconv"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestCRUD shares one server across the single-document CRUD subtests.
func TestCRUD(t *testing.T) {
	_, c := startServer(t)
	tests := []struct {
		name string
		fn   func(t *testing.T, coll *mongo.Collection)
	}{
		{"InsertFind", testInsertFind},
		{"DuplicateKey", testDuplicateKey},
		{"UpdateCounts", testUpdateCounts},
		{"ImmutableID", testImmutableID},
		{"Upsert", testUpsert},
		{"Replace", testReplace},
		{"Delete", testDelete},
		{"FindOneAndX", testFindOneAndX},
		{"Counts", testCounts},
		{"Distinct", testDistinct},
		{"ErrorCodes", testCRUDErrorCodes},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, freshColl(t, c, "crud")) })
	}
}

// seedDocs inserts _id 1..n with a = _id % 3, b = "s<_id>".
func seedDocs(t *testing.T, coll *mongo.Collection, n int) {
	t.Helper()
	docs := make([]any, n)
	for i := range n {
		docs[i] = bson.D{{Key: "_id", Value: int32(i + 1)}, {Key: "a", Value: int32((i + 1) % 3)},
			{Key: "b", Value: "s" + itoa(i+1)}}
	}
	if _, err := coll.InsertMany(tctx(t, opTimeout), docs); err != nil {
		t.Fatalf("seed: %v", err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// findOne returns the document with _id id, or nil.
func findOne(t *testing.T, coll *mongo.Collection, id any) bson.D {
	t.Helper()
	var d bson.D
	err := coll.FindOne(tctx(t, opTimeout), bson.D{{Key: "_id", Value: id}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil
	}
	if err != nil {
		t.Fatalf("findOne %v: %v", id, err)
	}
	return d
}

func wantDoc(t *testing.T, what string, got, want bson.D) {
	t.Helper()
	if asJSON(got) != asJSON(want) {
		t.Errorf("%s:\n got  %s\n want %s", what, asJSON(got), asJSON(want))
	}
}

func testInsertFind(t *testing.T, coll *mongo.Collection) {
	ctx := tctx(t, opTimeout)
	res, err := coll.InsertOne(ctx, bson.D{{Key: "x", Value: int32(1)}})
	if err != nil {
		t.Fatalf("insertOne: %v", err)
	}
	if _, ok := res.InsertedID.(bson.ObjectID); !ok {
		t.Errorf("InsertedID = %T %v, want a generated ObjectID", res.InsertedID, res.InsertedID)
	}
	got := findOne(t, coll, res.InsertedID)
	wantDoc(t, "generated _id doc", got, bson.D{{Key: "_id", Value: res.InsertedID}, {Key: "x", Value: int32(1)}})

	coll2 := coll.Database().Collection(coll.Name() + "_q")
	_ = coll2.Drop(ctx)
	seedDocs(t, coll2, 10)
	opts := options.Find().SetSort(bson.D{{Key: "b", Value: -1}}).SetSkip(1).SetLimit(3).
		SetProjection(bson.D{{Key: "b", Value: 1}, {Key: "_id", Value: 0}})
	cur, err := coll2.Find(ctx, bson.D{{Key: "a", Value: bson.D{{Key: "$in", Value: bson.A{int32(0), int32(1)}}}}}, opts)
	if err != nil {
		t.Fatalf("find: %v", err)
	}
	docs := decodeAll(t, ctx, cur)
	// a in {0,1}: ids 1,3,4,6,7,9,10; b desc (string order): s9,s7,s6,s4,s3,s10,s1.
	want := []string{`{"b":"s7"}`, `{"b":"s6"}`, `{"b":"s4"}`}
	var gotS []string
	for _, d := range docs {
		gotS = append(gotS, asJSON(d))
	}
	if !reflect.DeepEqual(gotS, want) {
		t.Errorf("find sort/skip/limit/projection: got %v, want %v", gotS, want)
	}
}

func testDuplicateKey(t *testing.T, coll *mongo.Collection) {
	ctx := tctx(t, opTimeout)
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "k"}}); err != nil {
		t.Fatalf("insert: %v", err)
	}
	_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "k"}, {Key: "v", Value: 2}})
	if !mongo.IsDuplicateKeyError(err) {
		t.Fatalf("second insert of _id k: got %v, want duplicate key error", err)
	}
	wantCode(t, err, 11000, "duplicate _id")
	if got := findOne(t, coll, "k"); len(got) != 1 {
		t.Errorf("failed insert changed the document: %s", asJSON(got))
	}
}

func testUpdateCounts(t *testing.T, coll *mongo.Collection) {
	ctx := tctx(t, opTimeout)
	seedDocs(t, coll, 9)
	r, err := coll.UpdateMany(ctx, bson.D{{Key: "a", Value: int32(1)}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: int32(5)}}}})
	if err != nil {
		t.Fatalf("updateMany: %v", err)
	}
	if r.MatchedCount != 3 || r.ModifiedCount != 3 || r.UpsertedCount != 0 {
		t.Errorf("updateMany counts = %+v, want matched 3 modified 3", *r)
	}
	wantDoc(t, "after $inc", findOne(t, coll, int32(4)),
		bson.D{{Key: "_id", Value: int32(4)}, {Key: "a", Value: int32(1)}, {Key: "b", Value: "s4"}, {Key: "n", Value: int32(5)}})
	// A no-op $set matches but does not modify.
	r, err = coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: int32(4)}}, bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: int32(1)}}}})
	if err != nil {
		t.Fatalf("updateOne: %v", err)
	}
	if r.MatchedCount != 1 || r.ModifiedCount != 0 {
		t.Errorf("no-op updateOne counts = %+v, want matched 1 modified 0", *r)
	}
	r, err = coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: int32(99)}}, bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: 1}}}})
	if err != nil || r.MatchedCount != 0 || r.ModifiedCount != 0 || r.UpsertedID != nil {
		t.Errorf("update of missing doc = %+v, %v; want all zero", r, err)
	}
}

func testImmutableID(t *testing.T, coll *mongo.Collection) {
	ctx := tctx(t, opTimeout)
	seedDocs(t, coll, 1)
	_, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: int32(1)}}, bson.D{{Key: "$set", Value: bson.D{{Key: "_id", Value: int32(2)}}}})
	wantCode(t, err, 66, "$set _id")
	_, err = coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: int32(1)}}, bson.D{{Key: "_id", Value: int32(2)}, {Key: "z", Value: 1}})
	wantCode(t, err, 66, "replace with different _id")
	wantDoc(t, "doc unchanged", findOne(t, coll, int32(1)),
		bson.D{{Key: "_id", Value: int32(1)}, {Key: "a", Value: int32(1)}, {Key: "b", Value: "s1"}})
}

func testUpsert(t *testing.T, coll *mongo.Collection) {
	ctx := tctx(t, opTimeout)
	filter := bson.D{{Key: "_id", Value: "u1"}, {Key: "k", Value: int32(5)}}
	upd := bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: "x"}}}, {Key: "$setOnInsert", Value: bson.D{{Key: "c", Value: true}}}}
	r, err := coll.UpdateOne(ctx, filter, upd, options.UpdateOne().SetUpsert(true))
	if err != nil {
		t.Fatalf("upsert: %v", err)
	}
	if r.MatchedCount != 0 || r.UpsertedCount != 1 || r.UpsertedID != "u1" {
		t.Errorf("upsert insert result = %+v, want upserted u1", *r)
	}
	// Since MongoDB 5.0 update operators add new fields in lexicographic order.
	wantDoc(t, "upserted", findOne(t, coll, "u1"), bson.D{{Key: "_id", Value: "u1"}, {Key: "k", Value: int32(5)},
		{Key: "c", Value: true}, {Key: "v", Value: "x"}})
	upd2 := bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: "y"}}}, {Key: "$setOnInsert", Value: bson.D{{Key: "c", Value: false}}}}
	r, err = coll.UpdateOne(ctx, filter, upd2, options.UpdateOne().SetUpsert(true))
	if err != nil {
		t.Fatalf("upsert 2: %v", err)
	}
	if r.MatchedCount != 1 || r.ModifiedCount != 1 || r.UpsertedCount != 0 || r.UpsertedID != nil {
		t.Errorf("upsert update result = %+v, want matched 1 modified 1", *r)
	}
	wantDoc(t, "upsert matched: $setOnInsert ignored", findOne(t, coll, "u1"), bson.D{{Key: "_id", Value: "u1"},
		{Key: "k", Value: int32(5)}, {Key: "c", Value: true}, {Key: "v", Value: "y"}})
	// Replacement upsert takes _id from the query.
	r, err = coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: "u2"}}, bson.D{{Key: "w", Value: int32(1)}}, options.Replace().SetUpsert(true))
	if err != nil || r.UpsertedID != "u2" {
		t.Fatalf("replace upsert = %+v, %v; want upserted u2", r, err)
	}
	wantDoc(t, "replace-upserted", findOne(t, coll, "u2"), bson.D{{Key: "_id", Value: "u2"}, {Key: "w", Value: int32(1)}})
}

func testReplace(t *testing.T, coll *mongo.Collection) {
	ctx := tctx(t, opTimeout)
	seedDocs(t, coll, 3)
	r, err := coll.ReplaceOne(ctx, bson.D{{Key: "b", Value: "s2"}}, bson.D{{Key: "only", Value: "me"}})
	if err != nil || r.MatchedCount != 1 || r.ModifiedCount != 1 {
		t.Fatalf("replaceOne = %+v, %v", r, err)
	}
	wantDoc(t, "replaced keeps _id", findOne(t, coll, int32(2)), bson.D{{Key: "_id", Value: int32(2)}, {Key: "only", Value: "me"}})
}

func testDelete(t *testing.T, coll *mongo.Collection) {
	ctx := tctx(t, opTimeout)
	seedDocs(t, coll, 9)
	r, err := coll.DeleteOne(ctx, bson.D{{Key: "a", Value: int32(0)}})
	if err != nil || r.DeletedCount != 1 {
		t.Fatalf("deleteOne = %+v, %v; want 1", r, err)
	}
	r, err = coll.DeleteMany(ctx, bson.D{{Key: "a", Value: bson.D{{Key: "$gte", Value: int32(1)}}}})
	if err != nil || r.DeletedCount != 6 {
		t.Fatalf("deleteMany = %+v, %v; want 6", r, err)
	}
	n, err := coll.CountDocuments(ctx, bson.D{})
	if err != nil || n != 2 {
		t.Errorf("count after deletes = %d, %v; want 2", n, err)
	}
	r, err = coll.DeleteMany(ctx, bson.D{{Key: "nope", Value: 1}})
	if err != nil || r.DeletedCount != 0 {
		t.Errorf("delete nothing = %+v, %v", r, err)
	}
}
