package integration

import (
	"errors"
	"sort"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestBulkWrite checks ordered and unordered bulk writes, including the
// per-request error details of mongo.BulkWriteException.
func TestBulkWrite(t *testing.T) {
	_, c := startServer(t)
	t.Run("Ordered", func(t *testing.T) { testBulkOrdered(t, freshColl(t, c, "bulk")) })
	t.Run("Unordered", func(t *testing.T) { testBulkUnordered(t, freshColl(t, c, "bulk")) })
	t.Run("Mixed", func(t *testing.T) { testBulkMixed(t, freshColl(t, c, "bulk")) })
	t.Run("InsertManyUnordered", func(t *testing.T) { testInsertManyUnordered(t, freshColl(t, c, "bulk")) })
}

func ins(id any) mongo.WriteModel {
	return mongo.NewInsertOneModel().SetDocument(bson.D{{Key: "_id", Value: id}})
}

// bulkErr returns err as a BulkWriteException, failing t if it is not one.
func bulkErr(t *testing.T, err error) mongo.BulkWriteException {
	t.Helper()
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) {
		t.Fatalf("got %T %v, want mongo.BulkWriteException", err, err)
	}
	return bwe
}

// errIndexes lists (index, code) of the write errors, sorted by index.
func errIndexes(bwe mongo.BulkWriteException) [][2]int {
	var out [][2]int
	for _, we := range bwe.WriteErrors {
		out = append(out, [2]int{we.Index, we.Code})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

func ids(t *testing.T, coll *mongo.Collection) []int32 {
	t.Helper()
	ctx := tctx(t, opTimeout)
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatalf("find: %v", err)
	}
	var out []int32
	for _, d := range decodeAll(t, ctx, cur) {
		out = append(out, d[0].Value.(int32))
	}
	return out
}

func testBulkOrdered(t *testing.T, coll *mongo.Collection) {
	models := []mongo.WriteModel{ins(int32(1)), ins(int32(1)), ins(int32(2)),
		mongo.NewDeleteOneModel().SetFilter(bson.D{{Key: "_id", Value: int32(1)}})}
	res, err := coll.BulkWrite(tctx(t, opTimeout), models)
	bwe := bulkErr(t, err)
	if got := errIndexes(bwe); len(got) != 1 || got[0] != [2]int{1, 11000} {
		t.Errorf("ordered write errors (index, code) = %v, want [[1 11000]]", got)
	}
	if !mongo.IsDuplicateKeyError(err) {
		t.Errorf("IsDuplicateKeyError(%v) = false", err)
	}
	if res == nil || res.InsertedCount != 1 || res.DeletedCount != 0 {
		t.Errorf("ordered result = %+v, want inserted 1, deleted 0", res)
	}
	if got := ids(t, coll); len(got) != 1 || got[0] != 1 {
		t.Errorf("ordered bulk must stop at the first error: ids = %v, want [1]", got)
	}
}

func testBulkUnordered(t *testing.T, coll *mongo.Collection) {
	models := []mongo.WriteModel{ins(int32(10)), ins(int32(10)), ins(int32(11)),
		mongo.NewUpdateOneModel().SetFilter(bson.D{{Key: "_id", Value: int32(11)}}).
			SetUpdate(bson.D{{Key: "$set", Value: bson.D{{Key: "u", Value: true}}}}),
		ins(int32(11)), ins(int32(12)),
		mongo.NewDeleteOneModel().SetFilter(bson.D{{Key: "_id", Value: int32(10)}})}
	res, err := coll.BulkWrite(tctx(t, opTimeout), models, options.BulkWrite().SetOrdered(false))
	bwe := bulkErr(t, err)
	want := [][2]int{{1, 11000}, {4, 11000}}
	if got := errIndexes(bwe); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("unordered write errors = %v, want %v", got, want)
	}
	if res == nil || res.InsertedCount != 3 || res.MatchedCount != 1 || res.ModifiedCount != 1 || res.DeletedCount != 1 {
		t.Errorf("unordered result = %+v, want inserted 3 matched 1 modified 1 deleted 1", res)
	}
	if got := ids(t, coll); len(got) != 2 || got[0] != 11 || got[1] != 12 {
		t.Errorf("unordered ids = %v, want [11 12]", got)
	}
	wantDoc(t, "updated by bulk", findOne(t, coll, int32(11)), bson.D{{Key: "_id", Value: int32(11)}, {Key: "u", Value: true}})
}

func testBulkMixed(t *testing.T, coll *mongo.Collection) {
	seedDocs(t, coll, 6)
	models := []mongo.WriteModel{
		mongo.NewUpdateManyModel().SetFilter(bson.D{{Key: "a", Value: int32(0)}}).
			SetUpdate(bson.D{{Key: "$set", Value: bson.D{{Key: "z", Value: int32(0)}}}}),
		mongo.NewReplaceOneModel().SetFilter(bson.D{{Key: "_id", Value: int32(1)}}).
			SetReplacement(bson.D{{Key: "r", Value: int32(1)}}),
		mongo.NewUpdateOneModel().SetFilter(bson.D{{Key: "_id", Value: int32(50)}}).SetUpsert(true).
			SetUpdate(bson.D{{Key: "$set", Value: bson.D{{Key: "n", Value: int32(50)}}}}),
		mongo.NewDeleteManyModel().SetFilter(bson.D{{Key: "a", Value: int32(2)}}),
	}
	res, err := coll.BulkWrite(tctx(t, opTimeout), models)
	if err != nil {
		t.Fatalf("mixed bulk: %v", err)
	}
	if res.MatchedCount != 3 || res.ModifiedCount != 3 || res.UpsertedCount != 1 || res.DeletedCount != 2 {
		t.Errorf("mixed result = %+v, want matched 3 modified 3 upserted 1 deleted 2", *res)
	}
	if res.UpsertedIDs[2] != int32(50) {
		t.Errorf("UpsertedIDs = %v, want {2: 50}", res.UpsertedIDs)
	}
	if got := ids(t, coll); len(got) != 5 {
		t.Errorf("ids after mixed bulk = %v, want [1 3 4 6 50]", got)
	}
}

func testInsertManyUnordered(t *testing.T, coll *mongo.Collection) {
	docs := []any{bson.D{{Key: "_id", Value: int32(1)}}, bson.D{{Key: "_id", Value: int32(1)}},
		bson.D{{Key: "_id", Value: int32(2)}}}
	_, err := coll.InsertMany(tctx(t, opTimeout), docs, options.InsertMany().SetOrdered(false))
	bwe := bulkErr(t, err)
	if got := errIndexes(bwe); len(got) != 1 || got[0] != [2]int{1, 11000} {
		t.Errorf("insertMany write errors = %v, want [[1 11000]]", got)
	}
	if got := ids(t, coll); len(got) != 2 {
		t.Errorf("insertMany unordered ids = %v, want [1 2]", got)
	}
}
