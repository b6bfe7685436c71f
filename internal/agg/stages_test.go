package agg

import "testing"

const people = `[
	{"_id": 1, "name": "ann", "age": 30, "city": "x", "tags": ["a", "b"]},
	{"_id": 2, "name": "bob", "age": 25, "city": "y", "tags": []},
	{"_id": 3, "name": "cy", "age": 35, "city": "x"}
]`

func TestBasicStages(t *testing.T) {
	runPipeCases(t, []pipeCase{
		{pipeline: `[{"$match": {"city": "x"}}]`, input: people, want: `[
			{"_id": 1, "name": "ann", "age": 30, "city": "x", "tags": ["a", "b"]},
			{"_id": 3, "name": "cy", "age": 35, "city": "x"}]`},
		{pipeline: `[{"$match": 1}]`, code: 15959},
		{pipeline: `[{"$sort": {"age": -1}}, {"$project": {"age": 1}}]`, input: people, want: `[{"_id": 3, "age": 35}, {"_id": 1, "age": 30}, {"_id": 2, "age": 25}]`},
		{pipeline: `[{"$sort": {"age": 1}}, {"$limit": 2}, {"$project": {"_id": 1}}]`, input: people, want: `[{"_id": 2}, {"_id": 1}]`},
		{pipeline: `[{"$sort": {"city": 1}}, {"$project": {"_id": 1}}]`, input: people, want: `[{"_id": 1}, {"_id": 3}, {"_id": 2}]`},
		{pipeline: `[{"$sort": {}}]`, code: 15976},
		{pipeline: `[{"$sort": {"a": 2}}]`, code: 15975},
		{pipeline: `[{"$skip": 2}, {"$project": {"_id": 1}}]`, input: people, want: `[{"_id": 3}]`},
		{pipeline: `[{"$skip": 5}]`, input: people, want: `[]`},
		{pipeline: `[{"$skip": -1}]`, code: 15956},
		{pipeline: `[{"$skip": "a"}]`, code: 15972},
		{pipeline: `[{"$limit": 1}, {"$project": {"_id": 1}}]`, input: people, want: `[{"_id": 1}]`},
		{pipeline: `[{"$limit": 0}]`, code: 15958},
		{pipeline: `[{"$limit": "a"}]`, code: 15957},
		{pipeline: `[{"$count": "n"}]`, input: people, want: `[{"n": 3}]`},
		{pipeline: `[{"$match": {"x": 1}}, {"$count": "n"}]`, input: people, want: `[]`},
		{pipeline: `[{"$count": "$n"}]`, code: 40158},
		{pipeline: `[{"$count": "a.b"}]`, code: 40160},
		{pipeline: `[{"$count": ""}]`, code: 40156},
		{pipeline: `[{"$foo": {}}]`, code: 40324},
		{pipeline: `[{"$match": {}, "$limit": 1}]`, code: 40323},
		{pipeline: `[5]`, code: 14},
		{pipeline: `[{"$out": "x"}]`, code: 238},
		{pipeline: `[{"$replaceRoot": {"newRoot": {"n": "$name"}}}]`, input: people, want: `[{"n": "ann"}, {"n": "bob"}, {"n": "cy"}]`},
		{pipeline: `[{"$replaceWith": "$name"}]`, input: people, code: 40228},
		{pipeline: `[{"$replaceRoot": {}}]`, code: 40231},
		{pipeline: `[{"$replaceRoot": {"newRoot": "$$ROOT", "x": 1}}]`, code: 40230},
		{pipeline: `[{"$sortByCount": "$city"}]`, input: people, want: `[{"_id": "x", "count": 2}, {"_id": "y", "count": 1}]`},
		{pipeline: `[{"$sortByCount": "city"}]`, code: 40148},
		{pipeline: `[{"$sample": {"size": 2}}, {"$count": "n"}]`, input: people, want: `[{"n": 2}]`},
		{pipeline: `[{"$sample": {"size": 10}}, {"$count": "n"}]`, input: people, want: `[{"n": 3}]`},
		{pipeline: `[{"$sample": {"size": -1}}]`, code: 28747},
		{pipeline: `[{"$sample": {}}]`, code: 28749},
		{pipeline: `[{"$addFields": {"now": "$$NOW"}}, {"$limit": 1}, {"$project": {"now": 1, "_id": 0}}]`, input: people, want: `[{"now": {"$date": "2024-01-02T03:04:05Z"}}]`},
	})
}

func TestProject(t *testing.T) {
	const doc = `[{"_id": 1, "a": {"b": 1, "c": 2}, "arr": [{"b": 1, "c": 2}, 5, [{"b": 3}]], "x": 9}]`
	runPipeCases(t, []pipeCase{
		{pipeline: `[{"$project": {"x": 1}}]`, input: doc, want: `[{"_id": 1, "x": 9}]`},
		{pipeline: `[{"$project": {"x": true, "_id": 0}}]`, input: doc, want: `[{"x": 9}]`},
		{pipeline: `[{"$project": {"x": 0}}]`, input: doc, want: `[{"_id": 1, "a": {"b": 1, "c": 2}, "arr": [{"b": 1, "c": 2}, 5, [{"b": 3}]]}]`},
		{pipeline: `[{"$project": {"_id": 0}}]`, input: doc, want: `[{"a": {"b": 1, "c": 2}, "arr": [{"b": 1, "c": 2}, 5, [{"b": 3}]], "x": 9}]`},
		{pipeline: `[{"$project": {"a.b": 1}}]`, input: doc, want: `[{"_id": 1, "a": {"b": 1}}]`},
		{pipeline: `[{"$project": {"a": {"c": 1}}}]`, input: doc, want: `[{"_id": 1, "a": {"c": 2}}]`},
		{pipeline: `[{"$project": {"arr.b": 1}}]`, input: doc, want: `[{"_id": 1, "arr": [{"b": 1}, [{"b": 3}]]}]`},
		{pipeline: `[{"$project": {"arr.c": 0, "a": 0}}]`, input: doc, want: `[{"_id": 1, "arr": [{"b": 1}, 5, [{"b": 3}]], "x": 9}]`},
		{pipeline: `[{"$project": {"y": {"$add": ["$x", 1]}, "x": 1}}]`, input: doc, want: `[{"_id": 1, "x": 9, "y": 10}]`},
		{pipeline: `[{"$project": {"y": "$nope", "z": "$$REMOVE", "x": 1}}]`, input: doc, want: `[{"_id": 1, "x": 9}]`},
		{pipeline: `[{"$project": {"a.d": "$x"}}]`, input: doc, want: `[{"_id": 1, "a": {"d": 9}}]`},
		{pipeline: `[{"$project": {"lit": {"$literal": 1}, "s": "str"}}]`, input: doc, want: `[{"_id": 1, "lit": 1, "s": "str"}]`},
		{pipeline: `[{"$project": {}}]`, code: 51272},
		{pipeline: `[{"$project": {"a": 1, "x": 0}}]`, code: 31254},
		{pipeline: `[{"$project": {"x": 0, "a": 1}}]`, code: 31253},
		{pipeline: `[{"$project": {"x": 0, "y": "$a"}}]`, code: 31252},
		{pipeline: `[{"$project": {"a": 1, "a.b": 1}}]`, code: 31249},
		{pipeline: `[{"$project": {"a": {}}}]`, code: 51270},
		{pipeline: `[{"$project": {"$a": 1}}]`, code: 16410},
		{pipeline: `[{"$project": {"y": {"$bogus": 1}}}]`, code: 168},
		{pipeline: `[{"$unset": ["a", "arr"]}]`, input: doc, want: `[{"_id": 1, "x": 9}]`},
		{pipeline: `[{"$unset": "a.b"}, {"$project": {"a": 1}}]`, input: doc, want: `[{"_id": 1, "a": {"c": 2}}]`},
		{pipeline: `[{"$unset": 1}]`, code: 31120},
	})
}

func TestAddFields(t *testing.T) {
	const doc = `[{"_id": 1, "a": {"b": 1}, "arr": [{"b": 1}, 5], "x": 9}]`
	runPipeCases(t, []pipeCase{
		{pipeline: `[{"$addFields": {"y": 1, "x": "$a.b"}}]`, input: doc, want: `[{"_id": 1, "a": {"b": 1}, "arr": [{"b": 1}, 5], "x": 1, "y": 1}]`},
		{pipeline: `[{"$set": {"a.c": 2}}]`, input: doc, want: `[{"_id": 1, "a": {"b": 1, "c": 2}, "arr": [{"b": 1}, 5], "x": 9}]`},
		{pipeline: `[{"$set": {"a": {"c": 2}}}]`, input: doc, want: `[{"_id": 1, "a": {"b": 1, "c": 2}, "arr": [{"b": 1}, 5], "x": 9}]`},
		{pipeline: `[{"$set": {"arr.c": 2}}, {"$project": {"arr": 1, "_id": 0}}]`, input: doc, want: `[{"arr": [{"b": 1, "c": 2}, {"c": 2}]}]`},
		{pipeline: `[{"$set": {"x": "$$REMOVE"}}, {"$project": {"a": 0, "arr": 0}}]`, input: doc, want: `[{"_id": 1}]`},
		{pipeline: `[{"$set": {"n.m": "$x"}}, {"$project": {"n": 1, "_id": 0}}]`, input: doc, want: `[{"n": {"m": 9}}]`},
		{pipeline: `[{"$set": {"e": {}}}, {"$project": {"e": 1, "_id": 0}}]`, input: doc, want: `[{"e": {}}]`},
		{pipeline: `[{"$addFields": {}}]`, code: 51272},
		{pipeline: `[{"$addFields": 1}]`, code: 40272},
	})
}
