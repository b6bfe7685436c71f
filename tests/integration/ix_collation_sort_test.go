package integration

import (
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestIxSortUnderOtherCollation: an index whose collation differs from the
// query's still answers a numeric predicate, but cannot provide a sort:
// the results come back in the sort's order (a SORT stage), not in the
// index's.
func TestIxSortUnderOtherCollation(t *testing.T) {
	_, c := startServer(t)
	coll := freshColl(t, c, "ixcolsort")
	ctx := tctx(t, opTimeout)
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "a", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	var docs []any
	for i := range int32(20) {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "a", Value: i}, {Key: "b", Value: 100 - i}})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	for _, sortSpec := range []bson.D{{{Key: "b", Value: 1}}, {{Key: "a", Value: -1}}} {
		opts := options.Find().SetSort(sortSpec).SetCollation(&options.Collation{Locale: "en", Strength: 2})
		cur, err := coll.Find(ctx, bson.D{{Key: "a", Value: bson.D{{Key: "$gte", Value: 5}}}}, opts)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int32
		for _, d := range decodeAll(t, ctx, cur) {
			ids = append(ids, field(d, "_id").(int32))
		}
		want := slices.Clone(ids)
		slices.Sort(want)
		slices.Reverse(want) // both sorts put the highest _id first
		if len(ids) != 15 || !slices.Equal(ids, want) {
			t.Errorf("sort %s under en/2: %v, want %v", asJSON(sortSpec), ids, want)
		}
	}
}
