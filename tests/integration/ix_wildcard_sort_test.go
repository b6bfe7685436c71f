package integration

import (
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// ixOrder returns the _ids find(filter).sort(sortSpec) returns, in order.
func ixOrder(t *testing.T, coll *mongo.Collection, filter, sortSpec bson.D) []int32 {
	t.Helper()
	cur, err := coll.Find(tctx(t, opTimeout), filter, options.Find().SetSort(sortSpec))
	if err != nil {
		t.Fatal(err)
	}
	var ids []int32
	for _, d := range decodeAll(t, tctx(t, opTimeout), cur) {
		ids = append(ids, field(d, "_id").(int32))
	}
	return ids
}

// TestIxWildcardSort: as MongoDB, a wildcard index provides the sort on
// the field whose predicate it answers while no indexed path is an array
// (no SORT stage, ascending and descending); a sort on another field is
// done by a SORT stage after the wildcard scan (in order), and once a
// document holds an array the wildcard scan no longer provides any sort.
func TestIxWildcardSort(t *testing.T) {
	_, c := startServer(t)
	coll := freshColl(t, c, "ixwcs")
	ctx := tctx(t, opTimeout)
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "$**", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	var docs []any
	for i := range int32(30) {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "a", Value: (i * 7) % 30}, {Key: "b", Value: 100 - i}})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	filter := bson.D{{Key: "a", Value: bson.D{{Key: "$gte", Value: 10}}}}
	check := func(sortSpec bson.D, wantSortStage bool) {
		t.Helper()
		stages := strings.Join(planStages(t, coll, filter, sortSpec), ",")
		if !strings.Contains(stages, "IXSCAN") || strings.Contains(stages, "SORT") != wantSortStage {
			t.Errorf("sort %s: stages [%s], want IXSCAN and SORT %v", asJSON(sortSpec), stages, wantSortStage)
		}
		got := ixOrder(t, coll, filter, sortSpec)
		key, dir := sortSpec[0].Key, sortSpec[0].Value.(int)
		want := slices.Clone(got)
		slices.SortStableFunc(want, func(x, y int32) int {
			vx, vy := map[string]int32{"a": (x * 7) % 30, "b": 100 - x}[key], map[string]int32{"a": (y * 7) % 30, "b": 100 - y}[key]
			return dir * int(vx-vy)
		})
		if len(got) != 20 || !slices.Equal(got, want) {
			t.Errorf("sort %s: got %v, want %v", asJSON(sortSpec), got, want)
		}
	}
	check(bson.D{{Key: "a", Value: 1}}, false)
	check(bson.D{{Key: "a", Value: -1}}, false)
	check(bson.D{{Key: "b", Value: 1}}, true)
	check(bson.D{{Key: "b", Value: -1}}, true)
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(99)}, {Key: "c", Value: bson.A{1, 2}}}); err != nil {
		t.Fatal(err)
	}
	check(bson.D{{Key: "a", Value: 1}}, true)
}
