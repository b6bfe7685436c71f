package router

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// pipe parses a pipeline written as relaxed extended JSON.
func pipe(t *testing.T, s string) bson.A {
	t.Helper()
	var doc bson.D
	if err := bson.UnmarshalExtJSON([]byte(`{"p":`+s+`}`), false, &doc); err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	a, _ := doc[0].Value.(bson.A)
	return a
}

func TestSplitPipeline(t *testing.T) {
	for _, tc := range []struct {
		name, in, shards, merge, sort string
	}{
		{"empty", `[]`, `[]`, `[]`, `null`},
		{"streaming only", `[{"$match":{"a":1}},{"$unwind":"$b"},{"$project":{"b":1}}]`,
			`[{"$match":{"a":1}},{"$unwind":"$b"},{"$project":{"b":1}}]`, `[]`, `null`},
		{"sort merged, limit pushed down",
			`[{"$match":{"a":1}},{"$sort":{"x":-1}},{"$skip":2},{"$limit":5},{"$project":{"x":1}}]`,
			`[{"$match":{"a":1}},{"$sort":{"x":-1}},{"$limit":7}]`,
			`[{"$skip":2},{"$limit":5},{"$project":{"x":1}}]`, `{"x":-1}`},
		{"sort by $meta runs on the router", `[{"$sort":{"s":{"$meta":"textScore"}}}]`,
			`[]`, `[{"$sort":{"s":{"$meta":"textScore"}}}]`, `null`},
		{"limit on both", `[{"$limit":3},{"$set":{"a":1}}]`,
			`[{"$limit":3}]`, `[{"$limit":3},{"$set":{"a":1}}]`, `null`},
		{"skip on the router", `[{"$skip":3},{"$match":{"a":1}}]`,
			`[]`, `[{"$skip":3},{"$match":{"a":1}}]`, `null`},
		{"group split",
			`[{"$group":{"_id":"$g","n":{"$sum":1},"lo":{"$min":"$x"}}},{"$sort":{"_id":1}}]`,
			`[{"$group":{"_id":"$g","p0":{"$sum":1},"p1":{"$min":"$x"}}}]`,
			`[{"$group":{"_id":"$_id","p0":{"$sum":"$p0"},"p1":{"$min":"$p1"}}},{"$project":{"_id":1,"n":"$p0","lo":"$p1"}},{"$sort":{"_id":1}}]`,
			`null`},
		{"avg as sum and count",
			`[{"$group":{"_id":null,"a":{"$avg":"$x"}}}]`,
			`[{"$group":{"_id":null,"p0s":{"$sum":"$x"},"p0n":{"$sum":{"$cond":[{"$isNumber":"$x"},1,0]}}}}]`,
			`[{"$group":{"_id":"$_id","p0s":{"$sum":"$p0s"},"p0n":{"$sum":"$p0n"}}},{"$project":{"_id":1,"a":{"$cond":[{"$eq":["$p0n",0]},null,{"$divide":["$p0s","$p0n"]}]}}}]`,
			`null`},
		{"push concatenated",
			`[{"$group":{"_id":1,"v":{"$push":"$x"}}}]`,
			`[{"$group":{"_id":1,"p0":{"$push":"$x"}}}]`,
			`[{"$group":{"_id":"$_id","p0":{"$push":"$p0"}}},{"$project":{"_id":1,"v":{"$reduce":{"input":"$p0","initialValue":[],"in":{"$concatArrays":["$$value","$$this"]}}}}}]`,
			`null`},
		{"count is a group", `[{"$count":"n"}]`,
			`[{"$group":{"_id":null,"p0":{"$sum":1}}}]`,
			`[{"$group":{"_id":"$_id","p0":{"$sum":"$p0"}}},{"$project":{"_id":1,"n":"$p0"}},{"$project":{"_id":0}}]`, `null`},
		{"sortByCount is a group and a sort", `[{"$sortByCount":"$g"}]`,
			`[{"$group":{"_id":"$g","p0":{"$sum":1}}}]`,
			`[{"$group":{"_id":"$_id","p0":{"$sum":"$p0"}}},{"$project":{"_id":1,"count":"$p0"}},{"$sort":{"count":-1}}]`, `null`},
		{"unknown accumulator: whole group on the router", `[{"$group":{"_id":1,"t":{"$top":{}}}}]`,
			`[]`, `[{"$group":{"_id":1,"t":{"$top":{}}}}]`, `null`},
		{"group after sort is not split", `[{"$sort":{"a":1}},{"$group":{"_id":null,"f":{"$first":"$a"}}}]`,
			`[{"$sort":{"a":1}}]`, `[{"$group":{"_id":null,"f":{"$first":"$a"}}}]`, `{"a":1}`},
		{"lookup and facet on the router",
			`[{"$match":{"a":1}},{"$lookup":{"from":"o","as":"x","localField":"a","foreignField":"b"}},{"$facet":{"f":[{"$count":"n"}]}}]`,
			`[{"$match":{"a":1}}]`,
			`[{"$lookup":{"from":"o","as":"x","localField":"a","foreignField":"b"}},{"$facet":{"f":[{"$count":"n"}]}}]`, `null`},
		{"bucket is a group on a $switch and a sort", `[{"$bucket":{"groupBy":"$x","boundaries":[0,10,"$z"],"default":"o"}}]`,
			`[{"$group":{"_id":{"$switch":{"branches":[` +
				`{"case":{"$and":[{"$gte":["$x",{"$literal":0}]},{"$lt":["$x",{"$literal":10}]}]},"then":{"$literal":0}},` +
				`{"case":{"$and":[{"$gte":["$x",{"$literal":10}]},{"$lt":["$x",{"$literal":"$z"}]}]},"then":{"$literal":10}}],` +
				`"default":{"$literal":"o"}}},"p0":{"$sum":1}}}]`,
			`[{"$group":{"_id":"$_id","p0":{"$sum":"$p0"}}},{"$project":{"_id":1,"count":"$p0"}},{"$sort":{"_id":1}}]`, `null`},
		{"window, bucketAuto, graphLookup on the merger; redact on the shards",
			`[{"$redact":"$$KEEP"},{"$setWindowFields":{"sortBy":{"a":1},"output":{"r":{"$rank":{}}}}},{"$bucketAuto":{"groupBy":"$a","buckets":2}}]`,
			`[{"$redact":"$$KEEP"}]`,
			`[{"$setWindowFields":{"sortBy":{"a":1},"output":{"r":{"$rank":{}}}}},{"$bucketAuto":{"groupBy":"$a","buckets":2}}]`, `null`},
		{"graphLookup on the merger", `[{"$graphLookup":{"from":"e","startWith":"$a","connectFromField":"a","connectToField":"b","as":"h"}}]`,
			`[]`, `[{"$graphLookup":{"from":"e","startWith":"$a","connectFromField":"a","connectToField":"b","as":"h"}}]`, `null`},
		{"maxN split: shards keep n, the router the array form over their concatenation",
			`[{"$group":{"_id":"$g","m":{"$maxN":{"n":2,"input":"$x"}}}}]`,
			`[{"$group":{"_id":"$g","p0":{"$maxN":{"n":2,"input":"$x"}}}}]`,
			`[{"$group":{"_id":"$_id","p0":{"$push":"$p0"}}},{"$project":{"_id":1,"m":{"$maxN":{"n":2,"input":{"$reduce":{"input":"$p0","initialValue":[],"in":{"$concatArrays":["$$value","$$this"]}}}}}}}]`,
			`null`},
		{"maxN with an expression n: on the merger", `[{"$group":{"_id":"$g","m":{"$maxN":{"n":{"$add":[1,1]},"input":"$x"}}}}]`,
			`[]`, `[{"$group":{"_id":"$g","m":{"$maxN":{"n":{"$add":[1,1]},"input":"$x"}}}}]`, `null`},
		{"topN group on the merger", `[{"$group":{"_id":1,"t":{"$topN":{"n":2,"output":"$a","sortBy":{"a":1}}}}}]`,
			`[]`, `[{"$group":{"_id":1,"t":{"$topN":{"n":2,"output":"$a","sortBy":{"a":1}}}}}]`, `null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := splitPipeline(pipe(t, tc.in))
			if got := js(p.shards); got != tc.shards {
				t.Errorf("shards part %s\n want %s", got, tc.shards)
			}
			if got := js(p.merge); got != tc.merge {
				t.Errorf("merge part %s\n want %s", got, tc.merge)
			}
			if got := js(p.sortSpec); got != tc.sort {
				t.Errorf("merge sort %s, want %s", got, tc.sort)
			}
		})
	}
}

func TestReadsOtherCollections(t *testing.T) {
	for in, want := range map[string]bool{
		`[{"$match":{"a":1}},{"$group":{"_id":1}}]`:                       false,
		`[{"$lookup":{"from":"o","as":"x","pipeline":[]}}]`:               true,
		`[{"$facet":{"a":[{"$unionWith":"o"}]}}]`:                         true,
		`[{"$match":{"a":1}},{"$merge":"o"}]`:                             true,
		`[{"$facet":{"a":[{"$graphLookup":{"from":"o"}}],"b":[]}}]`:       true,
		`[{"$project":{"lookup":"$lookup"}},{"$sort":{"lookup":1}}]`:      false,
		`[{"$lookup":{"from":"o","as":"x","pipeline":[{"$out":"z"}]}}]`:   true,
		`[{"$unwind":"$a"},{"$replaceWith":{"$mergeObjects":["$a",{}]}}]`: false,
	} {
		if got := readsOtherCollections(pipe(t, in)); got != want {
			t.Errorf("readsOtherCollections(%s) = %v", in, got)
		}
	}
}

func TestNamedCollections(t *testing.T) {
	for in, want := range map[string]string{
		`[{"$match":{"a":1}}]`: `null`,
		`[{"$lookup":{"from":"o","as":"x","pipeline":[{"$unionWith":"p"}]}},{"$unionWith":{"coll":"q","pipeline":[]}}]`: `["d.o","d.p","d.q"]`,
		`[{"$facet":{"a":[{"$graphLookup":{"from":"g"}}]}},{"$out":{"db":"e","coll":"t"}}]`:                             `["d.g","e.t"]`,
		`[{"$merge":{"into":{"db":"e","coll":"m"}}}]`:                                                                   `["e.m"]`,
		`[{"$merge":"m"}]`:                     `["d.m"]`,
		`[{"$merge":{"into":"m","on":"_id"}}]`: `["d.m"]`,
		`[{"$out":"t"}]`:                       `["d.t"]`,
	} {
		if got := js(namedCollections(pipe(t, in), "d")); got != want {
			t.Errorf("namedCollections(%s) = %s, want %s", in, got, want)
		}
	}
}
