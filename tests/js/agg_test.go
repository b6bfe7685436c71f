package js

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/relaydb/relaydb/tests/harness"
)

// avgAccumulator is the $accumulator of MongoDB's manual: an average.
var avgAccumulator = bson.D{{Key: "$accumulator", Value: bson.D{
	{Key: "init", Value: "function() { return {count: 0, sum: 0} }"},
	{Key: "accumulate", Value: bson.JavaScript("function(state, x) { return {count: state.count + 1, sum: state.sum + x} }")},
	{Key: "accumulateArgs", Value: bson.A{"$x"}},
	{Key: "merge", Value: "function(a, b) { return {count: a.count + b.count, sum: a.sum + b.sum} }"},
	{Key: "finalize", Value: "function(state) { return state.sum / state.count }"},
	{Key: "lang", Value: "js"},
}}}

func aggregate(t *testing.T, coll *mongo.Collection, p mongo.Pipeline) []bson.D {
	t.Helper()
	cur, err := coll.Aggregate(tctx(t), p)
	if err != nil {
		t.Fatalf("aggregate %v: %v", p, err)
	}
	var out []bson.D
	if err := cur.All(tctx(t), &out); err != nil {
		t.Fatalf("aggregate %v: %v", p, err)
	}
	return out
}

// TestFunctionAndAccumulator: $function in $addFields and in find's $expr,
// $accumulator in $group, and their errors.
func TestFunctionAndAccumulator(t *testing.T) {
	db := harness.Start(t).Client(t).Database("js")
	coll := seeded(t, db, 20)
	checkScriptAggregations(t, coll)
	fn := bson.D{{Key: "$function", Value: bson.D{{Key: "body", Value: "function(x) { return x % 3 == 0 }"}, {Key: "args", Value: bson.A{"$x"}}, {Key: "lang", Value: "js"}}}}
	if got := ids(t, coll, bson.D{{Key: "$expr", Value: fn}}); !equalIDs(got, []int32{0, 3, 6, 9, 12, 15, 18}) {
		t.Errorf("find $expr $function: %v, want multiples of 3", got)
	}
	_, err := coll.Aggregate(tctx(t), mongo.Pipeline{{{Key: "$project", Value: bson.D{{Key: "y", Value: bson.D{{Key: "$function", Value: bson.D{
		{Key: "body", Value: "function() { throw new Error('fn failed') }"}, {Key: "args", Value: bson.A{}}, {Key: "lang", Value: "js"}}}}}}}}})
	wantCode(t, "$function throws", err, 139, "fn failed")
	_, err = coll.Aggregate(tctx(t), mongo.Pipeline{{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: "a", Value: bson.D{{Key: "$accumulator", Value: bson.D{
		{Key: "init", Value: "function() {}"}, {Key: "accumulate", Value: "function() {}"}, {Key: "accumulateArgs", Value: bson.A{}}, {Key: "lang", Value: "js"}}}}}}}}})
	wantCode(t, "$accumulator without merge", err, 4544709, "merge")
}

// checkScriptAggregations runs the $function and $accumulator pipelines
// whose results TestFunctionAndAccumulator and TestRouter share, on a
// collection seeded with x = 0..19.
func checkScriptAggregations(t *testing.T, coll *mongo.Collection) {
	t.Helper()
	out := aggregate(t, coll, mongo.Pipeline{
		{{Key: "$addFields", Value: bson.D{{Key: "label", Value: bson.D{{Key: "$function", Value: bson.D{
			{Key: "body", Value: bson.JavaScript("function(x, id) { return 'n' + (x * 10) + ':' + id }")}, {Key: "args", Value: bson.A{"$x", "$_id"}}, {Key: "lang", Value: "js"}}}}}}}},
		{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
	})
	if len(out) != 20 || field(out[2], "label") != "n20:2" {
		t.Errorf("$function: %v", out)
	}
	groups := aggregate(t, coll, mongo.Pipeline{
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$mod", Value: bson.A{"$x", 2}}}}, {Key: "avg", Value: avgAccumulator}}}},
		{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
	})
	// Even x: 0, 2, .. 18 (average 9); odd: 1, 3, .. 19 (average 10).
	if len(groups) != 2 || field(groups[0], "avg") != 9.0 || field(groups[1], "avg") != 10.0 {
		t.Errorf("$accumulator: %v", groups)
	}
}
