package agg

import "testing"

func TestUnwind(t *testing.T) {
	const in = `[
		{"_id": 1, "a": [1, 2]},
		{"_id": 2, "a": []},
		{"_id": 3, "a": null},
		{"_id": 4},
		{"_id": 5, "a": 7},
		{"_id": 6, "a": [[3]]}
	]`
	runPipeCases(t, []pipeCase{
		{pipeline: `[{"$unwind": "$a"}]`, input: in, want: `[
			{"_id": 1, "a": 1}, {"_id": 1, "a": 2}, {"_id": 5, "a": 7}, {"_id": 6, "a": [3]}]`},
		{pipeline: `[{"$unwind": {"path": "$a", "preserveNullAndEmptyArrays": true}}]`, input: in, want: `[
			{"_id": 1, "a": 1}, {"_id": 1, "a": 2}, {"_id": 2}, {"_id": 3, "a": null}, {"_id": 4}, {"_id": 5, "a": 7}, {"_id": 6, "a": [3]}]`},
		{pipeline: `[{"$unwind": {"path": "$a", "includeArrayIndex": "i", "preserveNullAndEmptyArrays": true}}]`, input: in, want: `[
			{"_id": 1, "a": 1, "i": {"$numberLong": "0"}}, {"_id": 1, "a": 2, "i": {"$numberLong": "1"}},
			{"_id": 2, "i": null}, {"_id": 3, "a": null, "i": null}, {"_id": 4, "i": null},
			{"_id": 5, "a": 7, "i": null}, {"_id": 6, "a": [3], "i": {"$numberLong": "0"}}]`},
		{name: "nested path", pipeline: `[{"$unwind": "$x.y"}]`, input: `[{"_id": 1, "x": {"y": ["p", "q"], "z": 1}}, {"_id": 2, "x": [{"y": [1]}]}]`, want: `[
			{"_id": 1, "x": {"y": "p", "z": 1}}, {"_id": 1, "x": {"y": "q", "z": 1}}]`},
		{name: "input untouched", pipeline: `[{"$unwind": "$a"}, {"$unwind": "$a"}]`, input: `[{"a": [[1, 2], 3]}]`, want: `[{"a": 1}, {"a": 2}, {"a": 3}]`},
		{pipeline: `[{"$unwind": "a"}]`, code: 28818},
		{pipeline: `[{"$unwind": 1}]`, code: 15981},
		{pipeline: `[{"$unwind": {}}]`, code: 28812},
		{pipeline: `[{"$unwind": {"path": 1}}]`, code: 28808},
		{pipeline: `[{"$unwind": {"path": "$a", "includeArrayIndex": "$i"}}]`, code: 28822},
		{pipeline: `[{"$unwind": {"path": "$a", "preserveNullAndEmptyArrays": 1}}]`, code: 28809},
		{pipeline: `[{"$unwind": {"path": "$a", "x": 1}}]`, code: 28811},
	})
}

func TestLookupFacetUnion(t *testing.T) {
	const orders = `[{"_id": 1, "item": "a"}, {"_id": 2, "item": "c"}, {"_id": 3}, {"_id": 4, "item": ["b", "zz"]}]`
	runPipeCases(t, []pipeCase{
		{pipeline: `[{"$lookup": {"from": "inventory", "localField": "item", "foreignField": "sku", "as": "inv"}}, {"$project": {"ids": "$inv._id"}}]`, input: orders, want: `[
			{"_id": 1, "ids": [1, 5]}, {"_id": 2, "ids": [5]}, {"_id": 3, "ids": [3, 4]}, {"_id": 4, "ids": [2]}]`},
		{name: "pipeline form", pipeline: `[{"$limit": 1}, {"$lookup": {"from": "inventory", "pipeline": [{"$match": {"qty": {"$gt": 5}}}, {"$project": {"_id": 1}}], "as": "x.y"}}]`, input: orders, want: `[
			{"_id": 1, "item": "a", "x": {"y": [{"_id": 1}]}}]`},
		{pipeline: `[{"$lookup": {"from": "inventory", "localField": "item", "as": "x"}}]`, code: 9},
		{pipeline: `[{"$lookup": {"from": "inventory", "localField": "a", "foreignField": "b"}}]`, code: 9},
		{pipeline: `[{"$lookup": {"from": "i", "let": 5, "pipeline": [], "as": "x"}}]`, code: 9},
		{pipeline: `[{"$facet": {"n": [{"$count": "n"}], "ids": [{"$project": {"_id": 1}}, {"$limit": 2}]}}]`, input: orders, want: `[
			{"n": [{"n": 4}], "ids": [{"_id": 1}, {"_id": 2}]}]`},
		{pipeline: `[{"$facet": {"n": [{"$out": "x"}]}}]`, code: 40600},
		{pipeline: `[{"$facet": {"n": 1}}]`, code: 40170},
		{pipeline: `[{"$facet": {}}]`, code: 40169},
		{pipeline: `[{"$unionWith": {"coll": "inventory", "pipeline": [{"$match": {"qty": 10}}]}}, {"$project": {"_id": 1}}]`, input: `[{"_id": "o"}]`, want: `[{"_id": "o"}, {"_id": 1}]`},
		{pipeline: `[{"$unionWith": "inventory"}, {"$count": "n"}]`, input: `[{"_id": "o"}]`, want: `[{"n": 6}]`},
	})
}
