package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// Pipeline splitting (MongoDB's DocumentSource distributedPlanLogic): an
// aggregate on a sharded collection runs in two parts. The shards part is
// the longest prefix of stages that transform documents one by one, plus
// the shards' half of the first stage that needs all documents; the merge
// part is that stage's other half and everything after it, run by the
// router (internal/agg) over the shards' output.
//
// Invariants:
//   - Running the shards part on every shard and the merge part over the
//     concatenation of their outputs (merged in sortSpec's order when it
//     is set) gives the pipeline's result on the whole collection.
//   - splitPipeline is pure: it neither validates nor executes (the
//     caller compiles the whole pipeline with agg first).
//   - The merge part never starts with a stage the shards could run
//     alone, except when a stage is split ($limit, $group).

// splitPlan is a pipeline divided for a sharded collection.
type splitPlan struct {
	shards bson.A // run by each targeted shard (never nil)
	merge  bson.A // run by the router over the shards' output (never nil)
	// sortSpec orders the shards' outputs for the merge (a merge sort of
	// sorted streams); nil: the outputs are concatenated.
	sortSpec bson.D
}

// streamingStages transform each document on its own (or drop it): a
// shard can run them on its part of the collection.
var streamingStages = map[string]bool{"$match": true, "$project": true, "$addFields": true, "$set": true,
	"$unset": true, "$replaceRoot": true, "$replaceWith": true, "$unwind": true, "$redact": true,
	// Sources of per-shard documents: each shard lists its own (the
	// union is the answer). TODO(#14): mongos adds a shard field.
	"$indexStats": true, "$planCacheStats": true}

// Stages that need all documents and have no shards' half end the shards
// part: they and everything after them run on the merger (the default
// case of splitPipeline). Among them: $setWindowFields, $bucketAuto,
// $densify, $fill (sort-dependent over whole partitions), $graphLookup
// (reads another collection), $sample, $facet. $redact is streaming.
// TODO(#14): run $setWindowFields on the shards when partitionBy is the
// shard key, and split $bucketAuto's sort as $sort is.

// splitPipeline divides pipeline (without a final $out or $merge) into
// the shards part and the merge part.
func splitPipeline(pipeline bson.A) splitPlan {
	p := splitPlan{shards: bson.A{}, merge: bson.A{}}
	for i, raw := range pipeline {
		name, spec := stageOf(raw)
		if streamingStages[name] {
			p.shards = append(p.shards, raw)
			continue
		}
		rest := pipeline[i+1:]
		switch name {
		case "$sort":
			if spec, ok := spec.(bson.D); ok && mergeableSort(spec) {
				p.shards = append(p.shards, raw)
				if n, ok := limitAfter(rest); ok {
					p.shards = append(p.shards, bson.D{{Key: "$limit", Value: n}})
				}
				p.sortSpec = spec
				p.merge = append(p.merge, rest...)
				return p
			}
		case "$limit":
			p.shards = append(p.shards, raw)
			p.merge = append(append(p.merge, raw), rest...)
			return p
		case "$geoNear":
			if key := geoNearSortKey(spec); key != nil {
				p.shards = append(p.shards, raw)
				p.sortSpec = key
				p.merge = append(p.merge, rest...)
				return p
			}
		case "$group", "$count", "$sortByCount", "$bucket":
			group, after := desugarGroup(name, spec)
			if shard, merge, ok := splitGroup(group); ok {
				p.shards = append(p.shards, bson.D{{Key: "$group", Value: shard}})
				p.merge = append(append(append(p.merge, merge...), after...), rest...)
				return p
			}
		}
		p.merge = append(p.merge, pipeline[i:]...)
		return p
	}
	return p
}

// stageOf returns a stage's name and argument ("" for a malformed one).
func stageOf(raw any) (string, any) {
	d, ok := raw.(bson.D)
	if !ok || len(d) != 1 {
		return "", nil
	}
	return d[0].Key, d[0].Value
}

// mergeableSort reports a sort the router can merge: directions only
// ({$meta} sorts are run by the router over all documents).
func mergeableSort(spec bson.D) bool {
	for _, e := range spec {
		if _, ok := bsonx.AsFloat64(e.Value); !ok {
			return false
		}
	}
	return len(spec) > 0
}

// limitAfter returns how many documents of a sorted stream the $skip and
// $limit stages right after the $sort can use (skip+limit): each shard
// needs no more than that many of its own.
func limitAfter(rest bson.A) (int64, bool) {
	var skip, need int64
	found := false
	for _, raw := range rest {
		name, spec := stageOf(raw)
		n, ok := bsonx.AsInt64(spec)
		if !ok || (name != "$skip" && name != "$limit") {
			break
		}
		if name == "$skip" {
			skip += n
			continue
		}
		if !found || skip+n < need {
			need = skip + n
		}
		found = true
	}
	return need, found
}

// desugarGroup returns the $group a $count, $sortByCount or $bucket stands for and
// the stages that follow it ($group itself: spec and none).
func desugarGroup(name string, spec any) (bson.D, bson.A) {
	one := bson.D{{Key: "$sum", Value: int32(1)}}
	switch name {
	case "$count":
		f, _ := spec.(string)
		return bson.D{{Key: "_id", Value: nil}, {Key: f, Value: one}},
			bson.A{bson.D{{Key: "$project", Value: bson.D{{Key: "_id", Value: int32(0)}}}}}
	case "$sortByCount":
		return bson.D{{Key: "_id", Value: spec}, {Key: "count", Value: one}},
			bson.A{bson.D{{Key: "$sort", Value: bson.D{{Key: "count", Value: int32(-1)}}}}}
	case "$bucket":
		return desugarBucket(spec)
	}
	g, _ := spec.(bson.D)
	return g, nil
}

// readsOtherCollections reports a stage anywhere in v (sub-pipelines
// included) that reads or writes another collection: such a pipeline
// cannot be passed to a single shard as it is, since the other
// collection may live elsewhere. It looks at every key, so it may say
// yes for a field merely named so (the safe answer).
func readsOtherCollections(v any) bool {
	switch t := v.(type) {
	case bson.D:
		for _, e := range t {
			switch e.Key {
			case "$lookup", "$graphLookup", "$unionWith", "$out", "$merge":
				return true
			}
			if readsOtherCollections(e.Value) {
				return true
			}
		}
	case bson.A:
		for _, x := range t {
			if readsOtherCollections(x) {
				return true
			}
		}
	}
	return false
}

// desugarBucket returns MongoDB's expansion of $bucket: a $group whose
// _id is the lower boundary of the value's bucket ($switch over
// [lower, upper) ranges, else the default) and a $sort on _id. A
// malformed spec (already refused by agg) gives nil.
func desugarBucket(spec any) (bson.D, bson.A) {
	d, _ := spec.(bson.D)
	groupBy, _ := bsonx.Get(d, "groupBy")
	bv, _ := bsonx.Get(d, "boundaries")
	bounds, _ := bv.(bson.A)
	if groupBy == nil || len(bounds) < 2 {
		return nil, nil
	}
	lit := func(v any) bson.D { return bson.D{{Key: "$literal", Value: v}} }
	branches := bson.A{}
	for i := 0; i+1 < len(bounds); i++ {
		in := bson.A{
			bson.D{{Key: "$gte", Value: bson.A{groupBy, lit(bounds[i])}}},
			bson.D{{Key: "$lt", Value: bson.A{groupBy, lit(bounds[i+1])}}},
		}
		branches = append(branches, bson.D{{Key: "case", Value: bson.D{{Key: "$and", Value: in}}}, {Key: "then", Value: lit(bounds[i])}})
	}
	sw := bson.D{{Key: "branches", Value: branches}}
	if def, ok := bsonx.Get(d, "default"); ok {
		sw = append(sw, bson.E{Key: "default", Value: lit(def)})
	}
	group := bson.D{{Key: "_id", Value: bson.D{{Key: "$switch", Value: sw}}}}
	if out := docField(d, "output"); out != nil {
		group = append(group, out...)
	} else {
		group = append(group, bson.E{Key: "count", Value: bson.D{{Key: "$sum", Value: int32(1)}}})
	}
	return group, bson.A{bson.D{{Key: "$sort", Value: bson.D{{Key: "_id", Value: int32(1)}}}}}
}
