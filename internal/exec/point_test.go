package exec

import (
	"fmt"
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestPointPlan: only a plain {_id: scalar} find with nothing else to
// compile takes the point-lookup path, and Find answers the same either way.
func TestPointPlan(t *testing.T) {
	oid := bson.NewObjectID()
	e := testEngine(t, []bson.D{
		{{Key: "_id", Value: int32(1)}, {Key: "a", Value: 1}},
		{{Key: "_id", Value: "s"}, {Key: "a", Value: 2}},
		{{Key: "_id", Value: "S"}, {Key: "a", Value: 3}},
		{{Key: "_id", Value: oid}, {Key: "a", Value: 4}},
		{{Key: "_id", Value: bson.D{{Key: "x", Value: 1}}}, {Key: "a", Value: 5}},
	})
	col := e.Catalog().Collection("t", "c")
	id := func(v any) bson.D { return bson.D{{Key: "_id", Value: v}} }
	cases := []struct {
		p    FindParams
		fast bool
		want int // documents found
	}{
		{p: FindParams{Filter: id(int32(1))}, fast: true, want: 1},
		{p: FindParams{Filter: id(int64(1))}, fast: true, want: 1},
		{p: FindParams{Filter: id(1.0)}, fast: true, want: 1},
		{p: FindParams{Filter: id("s")}, fast: true, want: 1},
		{p: FindParams{Filter: id(oid)}, fast: true, want: 1},
		{p: FindParams{Filter: id("nope")}, fast: true, want: 0},
		{p: FindParams{Filter: id(true)}, fast: true, want: 0},
		{p: FindParams{Filter: id(math.NaN())}, want: 0},
		{p: FindParams{Filter: id(bson.D{{Key: "x", Value: 1}})}, want: 1},
		{p: FindParams{Filter: id(bson.D{{Key: "$gt", Value: 0}})}, want: 1},
		{p: FindParams{Filter: id(bson.A{1})}, want: 0},
		{p: FindParams{Filter: id(bson.Regex{Pattern: "^s"})}, want: 1},
		{p: FindParams{Filter: id(nil)}, want: 0},
		{p: FindParams{Filter: id("s"), Projection: bson.D{{Key: "a", Value: 1}}}, want: 1},
		{p: FindParams{Filter: id("s"), Sort: bson.D{{Key: "a", Value: 1}}}, want: 1},
		{p: FindParams{Filter: id("s"), Hint: "_id_"}, want: 1},
		{p: FindParams{Filter: id("s"), ReturnKey: true}, want: 1},
		{p: FindParams{Filter: id("s"), Collation: en2Collation(t)}, want: 2},
		{p: FindParams{Filter: id(int32(1)), Collation: en2Collation(t)}, fast: true, want: 1},
		{p: FindParams{Filter: append(id(int32(1)), bson.E{Key: "a", Value: 1})}, want: 1},
		{p: FindParams{Filter: id(int32(1)), Limit: 1, Skip: 1}, fast: true, want: 0},
	}
	for i, tc := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			p := tc.p
			p.collator = collatorFor(col, p.Collation)
			if got := pointPlan(col, "t", "c", p) != nil; got != tc.fast {
				t.Fatalf("point path %v, want %v", got, tc.fast)
			}
			it, plan, err := e.Find("t", "c", tc.p)
			if err != nil {
				t.Fatal(err)
			}
			defer it.Close()
			n := 0
			for _, ok := it.Next(); ok; _, ok = it.Next() {
				n++
			}
			if err := it.Err(); err != nil {
				t.Fatal(err)
			}
			if n != tc.want {
				t.Fatalf("%d documents, want %d", n, tc.want)
			}
			if tc.fast && plan.Kind != "IDHACK" {
				t.Fatalf("plan %s, want IDHACK", plan.Kind)
			}
		})
	}
	if pointPlan(nil, "t", "missing", FindParams{Filter: id(int32(1))}) != nil {
		t.Fatal("a missing collection takes the point path")
	}
	if pointPlan(col, "local", "oplog.rs", FindParams{Filter: id(int32(1))}) != nil {
		t.Fatal("the oplog takes the point path")
	}
}
