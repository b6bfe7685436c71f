package agg

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

const sales = `[
	{"_id": 1, "item": "a", "price": 10, "qty": 2, "d": {"$date": "2024-01-01T00:00:00Z"}},
	{"_id": 2, "item": "b", "price": 20, "qty": {"$numberLong": "1"}},
	{"_id": 3, "item": "a", "price": 5.5, "qty": 10},
	{"_id": 4, "item": "c", "price": "n/a"},
	{"_id": 5, "item": 1},
	{"_id": 6, "item": 1.0, "qty": 2147483647},
	{"_id": 7, "item": 1, "qty": 1}
]`

func TestGroup(t *testing.T) {
	runPipeCases(t, []pipeCase{
		{name: "sum types", pipeline: `[{"$group": {"_id": "$item", "q": {"$sum": "$qty"}}}]`, input: sales, want: `[
			{"_id": "a", "q": 12}, {"_id": "b", "q": {"$numberLong": "1"}}, {"_id": "c", "q": 0},
			{"_id": 1, "q": {"$numberLong": "2147483648"}}]`},
		{name: "sum double", pipeline: `[{"$group": {"_id": "$item", "p": {"$sum": "$price"}}}, {"$limit": 1}]`, input: sales, want: `[{"_id": "a", "p": 15.5}]`},
		{name: "count", pipeline: `[{"$group": {"_id": null, "n": {"$sum": 1}, "c": {"$count": {}}}}]`, input: sales, want: `[{"_id": null, "n": 7, "c": 7}]`},
		{name: "avg", pipeline: `[{"$group": {"_id": "$item", "a": {"$avg": "$price"}}}]`, input: sales, want: `[
			{"_id": "a", "a": 7.75}, {"_id": "b", "a": 20.0}, {"_id": "c", "a": null}, {"_id": 1, "a": null}]`},
		{name: "min max", pipeline: `[{"$group": {"_id": null, "lo": {"$min": "$qty"}, "hi": {"$max": "$price"}}}]`, input: sales, want: `[{"_id": null, "lo": {"$numberLong": "1"}, "hi": "n/a"}]`},
		{name: "first last", pipeline: `[{"$group": {"_id": "$item", "f": {"$first": "$qty"}, "l": {"$last": "$qty"}}}, {"$skip": 2}]`, input: sales, want: `[
			{"_id": "c", "f": null, "l": null}, {"_id": 1, "f": null, "l": 1}]`},
		{name: "push addToSet", pipeline: `[{"$group": {"_id": "$item", "p": {"$push": "$qty"}, "s": {"$addToSet": "$item"}}}, {"$skip": 3}]`, input: sales, want: `[
			{"_id": 1, "p": [2147483647, 1], "s": [1]}]`},
		{name: "compound id", pipeline: `[{"$match": {"_id": {"$lte": 3}}}, {"$group": {"_id": {"i": "$item", "y": {"$year": "$d"}}, "n": {"$sum": 1}}}]`, input: sales, want: `[
			{"_id": {"i": "a", "y": 2024}, "n": 1}, {"_id": {"i": "b", "y": null}, "n": 1}, {"_id": {"i": "a", "y": null}, "n": 1}]`},
		{name: "missing id is null", pipeline: `[{"$group": {"_id": "$nope", "n": {"$sum": 1}}}]`, input: sales, want: `[{"_id": null, "n": 7}]`},
		{name: "mergeObjects", pipeline: `[{"$group": {"_id": null, "m": {"$mergeObjects": {"$cond": [{"$eq": ["$_id", 1]}, {"a": 1}, {"b": "$_id"}]}}}}]`, input: `[{"_id": 1}, {"_id": 2}, {"_id": 3}]`, want: `[{"_id": null, "m": {"a": 1, "b": 3}}]`},
		{name: "stdDevPop", pipeline: `[{"$group": {"_id": null, "s": {"$stdDevPop": "$v"}}}]`, input: `[{"v": 2}, {"v": 4}, {"v": 4}, {"v": 4}, {"v": 5}, {"v": 5}, {"v": 7}, {"v": 9}]`, want: `[{"_id": null, "s": 2.0}]`},
		{name: "empty input", pipeline: `[{"$group": {"_id": null, "n": {"$sum": 1}}}]`, want: `[]`},
		{pipeline: `[{"$group": {"n": {"$sum": 1}}}]`, code: 15955},
		{pipeline: `[{"$group": {"_id": null, "n": {"$foo": 1}}}]`, code: 15952},
		{pipeline: `[{"$group": {"_id": null, "n": 1}}]`, code: 40234},
		{pipeline: `[{"$group": {"_id": null, "n": {"$sum": 1, "$avg": 1}}}]`, code: 40238},
		{pipeline: `[{"$group": {"_id": null, "a.b": {"$sum": 1}}}]`, code: 40235},
		{pipeline: `[{"$group": {"_id": null, "$a": {"$sum": 1}}}]`, code: 40236},
		{pipeline: `[{"$group": {"_id": null, "n": {"$sum": [1, 2]}}}]`, code: 40237},
		{pipeline: `[{"$group": {"_id": null, "n": {"$count": 1}}}]`, code: 14},
		{name: "runtime error", pipeline: `[{"$group": {"_id": {"$divide": [1, 0]}}}]`, input: sales, code: 2},
	})
}

func TestBucket(t *testing.T) {
	const in = `[{"p": 1}, {"p": 5}, {"p": 12}, {"p": "x"}, {"p": 7}, {}]`
	runPipeCases(t, []pipeCase{
		{pipeline: `[{"$bucket": {"groupBy": "$p", "boundaries": [0, 5, 10], "default": "other"}}]`, input: in, want: `[
			{"_id": 0, "count": 1}, {"_id": 5, "count": 2}, {"_id": "other", "count": 3}]`},
		{pipeline: `[{"$bucket": {"groupBy": "$p", "boundaries": [0, 10], "default": 99, "output": {"ps": {"$push": "$p"}}}}]`, input: `[{"p": 3}, {"p": 1}]`, want: `[{"_id": 0, "ps": [3, 1]}]`},
		{pipeline: `[{"$bucket": {"groupBy": "$p", "boundaries": [0, 5, 10]}}]`, input: in, code: 40066},
		{pipeline: `[{"$bucket": {"groupBy": "$p", "boundaries": [5, 0]}}]`, code: 40194},
		{pipeline: `[{"$bucket": {"groupBy": "$p", "boundaries": [0, "a"]}}]`, code: 40193},
		{pipeline: `[{"$bucket": {"groupBy": "$p", "boundaries": [0, 10], "default": 5}}]`, code: 40199},
		{pipeline: `[{"$bucket": {"boundaries": [0, 10]}}]`, code: 40198},
	})
}

func BenchmarkGroup10k(b *testing.B) {
	docs := make([]bson.D, 10000)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "k", Value: fmt.Sprint("key", i%100)}, {Key: "v", Value: float64(i)}}
	}
	p, err := Compile(bson.A{bson.D{{Key: "$group", Value: bson.D{
		{Key: "_id", Value: "$k"},
		{Key: "n", Value: bson.D{{Key: "$sum", Value: int32(1)}}},
		{Key: "avg", Value: bson.D{{Key: "$avg", Value: "$v"}}},
		{Key: "max", Value: bson.D{{Key: "$max", Value: "$v"}}},
	}}}}, Env{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		out, err := Drain(p.Run(Slice(docs)))
		if err != nil || len(out) != 100 {
			b.Fatalf("%d groups, %v", len(out), err)
		}
	}
}
