package router

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// Splitting a $group: each shard groups its documents into partial
// groups, whose fields p0, p1, ... are partial states written in plain
// MQL (so an unmodified data node computes them); the router groups the
// partials again by _id, folding each state, and a final $project turns
// the states into the accumulators' results under their own names:
//
//	$sum, $count        partial sum          merged with $sum
//	$min, $max          partial extreme      merged with $min / $max
//	$first, $last       partial first/last   merged with $first / $last
//	$mergeObjects       partial merge        merged with $mergeObjects
//	$avg                sum and count of the numbers; merged with $sum,
//	                    the result is sum/count (null for no number)
//	$maxN, $minN,       partial n values, pushed into an array of arrays,
//	$firstN, $lastN     concatenated, and the array form of the operator
//	$push, $addToSet    partial arrays, pushed into an array of arrays,
//	                    then concatenated / set-unioned
//	$stdDevPop/Samp     the values (as $push); the result is the
//	                    $stdDevPop/$stdDevSamp expression over them
//	$accumulator        the state (no finalize on shards); the router
//	                    folds the states with merge, then finalizes
//
// $first and $last are only meaningful after a $sort, and a $sort is
// itself split (its merge part keeps the order), so a $group after a
// $sort is never split and sees the documents in order, as in MongoDB.

// splitGroup returns the shards' partial $group and the router's merging
// stages; ok is false for an accumulator it cannot split (the whole
// $group then runs on the router).
func splitGroup(group bson.D) (shard bson.D, merge bson.A, ok bool) {
	var id any
	hasID := false
	var acc, final bson.D
	for _, f := range group {
		if f.Key == "_id" {
			id, hasID = f.Value, true
			continue
		}
		a, _ := f.Value.(bson.D)
		if len(a) != 1 {
			return nil, nil, false
		}
		p := fmt.Sprintf("p%d", len(final))
		parts, merges, result, ok := splitAccumulator(p, a[0].Key, a[0].Value)
		if !ok {
			return nil, nil, false
		}
		shard, acc = append(shard, parts...), append(acc, merges...)
		final = append(final, bson.E{Key: f.Key, Value: result})
	}
	if !hasID {
		return nil, nil, false
	}
	shard = append(bson.D{{Key: "_id", Value: id}}, shard...)
	acc = append(bson.D{{Key: "_id", Value: "$_id"}}, acc...)
	proj := append(bson.D{{Key: "_id", Value: int32(1)}}, final...)
	return shard, bson.A{bson.D{{Key: "$group", Value: acc}}, bson.D{{Key: "$project", Value: proj}}}, true
}

// splitAccumulator returns one accumulator's partial fields (named p...),
// their merging accumulators and the expression of its result over the
// merged fields.
func splitAccumulator(p, op string, arg any) (parts, merges bson.D, result any, ok bool) {
	ref := "$" + p
	same := func(merge string) (bson.D, bson.D, any, bool) {
		return bson.D{{Key: p, Value: bson.D{{Key: op, Value: arg}}}},
			bson.D{{Key: p, Value: bson.D{{Key: merge, Value: ref}}}}, ref, true
	}
	switch op {
	case "$sum", "$min", "$max", "$first", "$last", "$mergeObjects":
		return same(op)
	case "$count":
		parts := bson.D{{Key: p, Value: bson.D{{Key: "$sum", Value: int32(1)}}}}
		return parts, bson.D{{Key: p, Value: bson.D{{Key: "$sum", Value: ref}}}}, ref, true
	case "$avg":
		return splitAvg(p, arg)
	case "$push", "$addToSet", "$stdDevPop", "$stdDevSamp":
		partial := op
		if op != "$addToSet" {
			partial = "$push"
		}
		parts := bson.D{{Key: p, Value: bson.D{{Key: partial, Value: arg}}}}
		merges := bson.D{{Key: p, Value: bson.D{{Key: "$push", Value: ref}}}}
		return parts, merges, foldArrays(ref, op), true
	case "$maxN", "$minN", "$firstN", "$lastN":
		return splitN(p, op, arg)
	case "$accumulator":
		return splitScriptAccumulator(p, arg) // pipeline_group_script.go
	}
	return nil, nil, nil, false
}

// splitN: each shard keeps its n (first, last, largest or smallest)
// values; the router applies the array form of op to their
// concatenation. Only a literal n splits: an expression is evaluated on
// a group's first document, which the router does not see.
func splitN(p, op string, arg any) (parts, merges bson.D, result any, ok bool) {
	spec, _ := arg.(bson.D)
	n, hasN := bsonx.Get(spec, "n")
	if _, hasIn := bsonx.Get(spec, "input"); !hasN || !hasIn || len(spec) != 2 || !bsonx.IsNumber(n) {
		return nil, nil, nil, false // malformed (the router reports it) or an expression
	}
	ref := "$" + p
	parts = bson.D{{Key: p, Value: bson.D{{Key: op, Value: arg}}}}
	merges = bson.D{{Key: p, Value: bson.D{{Key: "$push", Value: ref}}}}
	result = bson.D{{Key: op, Value: bson.D{{Key: "n", Value: n}, {Key: "input", Value: foldArrays(ref, "$push")}}}}
	return parts, merges, result, true
}

// splitAvg: the shards sum the numbers and count them.
func splitAvg(p string, arg any) (parts, merges bson.D, result any, ok bool) {
	sum, n := p+"s", p+"n"
	isNum := bson.D{{Key: "$cond", Value: bson.A{bson.D{{Key: "$isNumber", Value: arg}}, int32(1), int32(0)}}}
	parts = bson.D{{Key: sum, Value: bson.D{{Key: "$sum", Value: arg}}}, {Key: n, Value: bson.D{{Key: "$sum", Value: isNum}}}}
	merges = bson.D{{Key: sum, Value: bson.D{{Key: "$sum", Value: "$" + sum}}}, {Key: n, Value: bson.D{{Key: "$sum", Value: "$" + n}}}}
	result = bson.D{{Key: "$cond", Value: bson.A{
		bson.D{{Key: "$eq", Value: bson.A{"$" + n, int32(0)}}},
		nil,
		bson.D{{Key: "$divide", Value: bson.A{"$" + sum, "$" + n}}},
	}}}
	return parts, merges, result, true
}

// foldArrays is the expression combining an array of partial arrays into
// op's result.
func foldArrays(ref, op string) any {
	join := "$concatArrays"
	if op == "$addToSet" {
		join = "$setUnion"
	}
	all := bson.D{{Key: "$reduce", Value: bson.D{
		{Key: "input", Value: ref},
		{Key: "initialValue", Value: bson.A{}},
		{Key: "in", Value: bson.D{{Key: join, Value: bson.A{"$$value", "$$this"}}}},
	}}}
	switch op {
	case "$stdDevPop", "$stdDevSamp":
		return bson.D{{Key: op, Value: all}}
	}
	return all
}
