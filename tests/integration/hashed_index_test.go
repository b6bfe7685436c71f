package integration

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestHashedIndexes: hashed indexes as MongoDB's on one node, through the
// driver: created and listed with their "hashed" key, used for equality
// and $in (hash collisions filtered out) but never for ranges or sorts,
// hinted by name or pattern, kept in step with writes, and the refusals
// with MongoDB's codes.
func TestHashedIndexes(t *testing.T) {
	_, c := startServer(t)
	t.Run("Planner", func(t *testing.T) { testHashedPlanner(t, freshColl(t, c, "hidx")) })
	t.Run("Maintenance", func(t *testing.T) { testHashedMaintenance(t, freshColl(t, c, "hidx")) })
	t.Run("Refused", func(t *testing.T) { testHashedRefused(t, freshColl(t, c, "hidx")) })
	t.Run("Compound", func(t *testing.T) { testHashedCompound(t, freshColl(t, c, "hidx")) })
}

func hashedDocs(n int) []bson.D {
	docs := make([]bson.D, 0, n+2)
	for i := range n {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "a", Value: int32(i)}})
	}
	// 3.1 hashes as 3 (numbers hash as their int64); "3" does not.
	return append(docs, bson.D{{Key: "_id", Value: int32(100)}, {Key: "a", Value: 3.1}},
		bson.D{{Key: "_id", Value: int32(101)}, {Key: "a", Value: "3"}})
}

func testHashedPlanner(t *testing.T, coll *mongo.Collection) {
	insertDocs(t, coll, hashedDocs(30)...)
	if name := createIndex(t, coll, bson.D{{Key: "a", Value: "hashed"}}, nil); name != "a_hashed" {
		t.Fatalf("index name %q", name)
	}
	spec := listIndexes(t, coll)["a_hashed"]
	if key, _ := field(spec, "key").(bson.D); len(key) != 1 || key[0].Key != "a" || key[0].Value != "hashed" {
		t.Fatalf("listIndexes a_hashed = %s", asJSON(spec))
	}
	three := bson.D{{Key: "a", Value: 3}}
	wantStage(t, coll, three, nil, "IXSCAN")
	wantStage(t, coll, bson.D{{Key: "a", Value: bson.D{{Key: "$in", Value: bson.A{1, 2}}}}}, nil, "IXSCAN")
	wantStage(t, coll, bson.D{{Key: "a", Value: bson.D{{Key: "$gt", Value: 5}}}}, nil, "COLLSCAN")
	wantStage(t, coll, bson.D{}, bson.D{{Key: "a", Value: 1}}, "COLLSCAN")
	if got := idSet(t, coll, three, nil); len(got) != 1 || got[0] != 3 {
		t.Errorf("find {a: 3} = %v, want [3] (3.1 shares the hash)", got)
	}
	if got := idSet(t, coll, bson.D{{Key: "a", Value: 3.1}}, nil); len(got) != 1 || got[0] != 100 {
		t.Errorf("find {a: 3.1} = %v, want [100]", got)
	}
	if got := idSet(t, coll, bson.D{{Key: "a", Value: bson.D{{Key: "$in", Value: bson.A{1, 2, "3"}}}}}, nil); len(got) != 3 {
		t.Errorf("find {a: {$in: [1, 2, \"3\"]}} = %v, want 3 documents", got)
	}
	bounds := ixscanBounds(t, coll, three)
	if !strings.HasPrefix(bounds, "[") || strings.HasPrefix(bounds, "[3,") {
		t.Errorf("indexBounds.a = %q, want an interval in hash space", bounds)
	}
	// 3 and 3.1 share a hash: both entries are read, one document returned.
	st := executionStats(t, coll, three)
	if st.Lookup("nReturned").AsInt64() != 1 || st.Lookup("totalKeysExamined").AsInt64() != 2 || st.Lookup("totalDocsExamined").AsInt64() != 2 {
		t.Errorf("executionStats of {a: 3}: %s", st)
	}
	for _, hint := range []any{"a_hashed", bson.D{{Key: "a", Value: "hashed"}}} {
		n := hintedCount(t, coll, bson.D{}, hint)
		if n != 32 {
			t.Errorf("find({}).hint(%v) = %d documents, want 32", hint, n)
		}
		if n := hintedCount(t, coll, three, hint); n != 1 {
			t.Errorf("find({a: 3}).hint(%v) = %d documents, want 1", hint, n)
		}
	}
}

// ixscanBounds explains find(filter) and returns the first interval of
// the IXSCAN's indexBounds.a.
func ixscanBounds(t *testing.T, coll *mongo.Collection, filter bson.D) string {
	t.Helper()
	raw, err := coll.Database().RunCommand(tctx(t, opTimeout), bson.D{{Key: "explain", Value: bson.D{
		{Key: "find", Value: coll.Name()}, {Key: "filter", Value: filter}}}}).Raw()
	if err != nil {
		t.Fatalf("explain: %v", err)
	}
	ix := raw.Lookup("queryPlanner", "winningPlan", "inputStage")
	b, ok := ix.Document().Lookup("indexBounds", "a").Array().Index(0).StringValueOK()
	if !ok {
		t.Fatalf("no indexBounds.a in %s", raw)
	}
	return b
}

// executionStats explains find(filter) at verbosity executionStats.
func executionStats(t *testing.T, coll *mongo.Collection, filter bson.D) bson.Raw {
	t.Helper()
	raw, err := coll.Database().RunCommand(tctx(t, opTimeout), bson.D{{Key: "explain", Value: bson.D{
		{Key: "find", Value: coll.Name()}, {Key: "filter", Value: filter}}}, {Key: "verbosity", Value: "executionStats"}}).Raw()
	if err != nil {
		t.Fatalf("explain: %v", err)
	}
	st, ok := raw.Lookup("executionStats").DocumentOK()
	if !ok {
		t.Fatalf("no executionStats in %s", raw)
	}
	return st
}

func hintedCount(t *testing.T, coll *mongo.Collection, filter bson.D, hint any) int {
	t.Helper()
	ctx := tctx(t, opTimeout)
	cur, err := coll.Find(ctx, filter, options.Find().SetHint(hint))
	if err != nil {
		t.Fatalf("find hint %v: %v", hint, err)
	}
	return len(decodeAll(t, ctx, cur))
}

func testHashedMaintenance(t *testing.T, coll *mongo.Collection) {
	createIndex(t, coll, bson.D{{Key: "a", Value: "hashed"}}, nil)
	insertDocs(t, coll, hashedDocs(10)...)
	ctx := tctx(t, opTimeout)
	if _, err := coll.DeleteOne(ctx, bson.D{{Key: "a", Value: 7}}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "a", Value: 8}}, bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: 1008}}}}); err != nil {
		t.Fatalf("update: %v", err)
	}
	for _, tc := range []struct {
		a    any
		want int
	}{{7, 0}, {8, 0}, {1008, 1}, {9, 1}} {
		if n := hintedCount(t, coll, bson.D{{Key: "a", Value: tc.a}}, "a_hashed"); n != tc.want {
			t.Errorf("find {a: %v} by the hashed index = %d, want %d", tc.a, n, tc.want)
		}
	}
	_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 50}, {Key: "a", Value: bson.A{1}}})
	wantCode(t, err, 16766, "insert of an array")
	_, err = coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: int32(9)}}, bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: bson.A{9}}}}})
	wantCode(t, err, 16766, "update to an array")
	if n := hintedCount(t, coll, bson.D{{Key: "a", Value: 9}}, "a_hashed"); n != 1 {
		t.Errorf("after the refused update, find {a: 9} = %d, want 1", n)
	}
	if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 11 {
		t.Errorf("count = %d (%v), want 11", n, err)
	}
}

func testHashedRefused(t *testing.T, coll *mongo.Collection) {
	ctx := tctx(t, opTimeout)
	_, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "b", Value: "hashed"}}, Options: options.Index().SetUnique(true)})
	wantCode(t, err, 16764, "unique hashed index")
	_, err = coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "b", Value: "hashed"}, {Key: "c", Value: "hashed"}}})
	wantCode(t, err, 31303, "two hashed fields")
	insertDocs(t, coll, bson.D{{Key: "_id", Value: 1}, {Key: "b", Value: bson.A{1, 2}}})
	_, err = coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "b", Value: "hashed"}}})
	wantCode(t, err, 16766, "hashed index over an array")
	if _, ok := listIndexes(t, coll)["b_hashed"]; ok {
		t.Error("the refused b_hashed index is listed")
	}
}

func testHashedCompound(t *testing.T, coll *mongo.Collection) {
	createIndex(t, coll, bson.D{{Key: "g", Value: 1}, {Key: "h", Value: "hashed"}}, nil)
	for i := range 20 {
		insertDocs(t, coll, bson.D{{Key: "_id", Value: int32(i)}, {Key: "g", Value: int32(i % 4)}, {Key: "h", Value: bson.D{{Key: "k", Value: int32(i)}}}})
	}
	filter := bson.D{{Key: "g", Value: 1}, {Key: "h", Value: bson.D{{Key: "k", Value: int32(5)}}}}
	wantStage(t, coll, filter, nil, "IXSCAN")
	if got := idSet(t, coll, filter, nil); len(got) != 1 || got[0] != 5 {
		t.Errorf("find %s = %v, want [5]", asJSON(filter), got)
	}
	// The ascending prefix still serves its sort.
	wantStage(t, coll, bson.D{{Key: "g", Value: bson.D{{Key: "$gte", Value: 2}}}}, bson.D{{Key: "g", Value: 1}}, "IXSCAN")
	_, err := coll.InsertOne(tctx(t, opTimeout), bson.D{{Key: "g", Value: bson.A{1}}})
	wantCode(t, err, 16766, "array in the ascending field of a hashed index")
}
