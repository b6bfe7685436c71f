package router

import (
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// textScoreMergeField is the field a sharded find sorted by {$meta:
// "textScore"} asks every shard to project its documents' scores into;
// the router merges on it (higher first) and strips it. Shards sort by
// the score themselves, so each stream arrives in merge order.
const textScoreMergeField = "__relaydb_textScore"

// textScoreMergeSort rewrites a sort's {$meta: "textScore"} keys into the
// merge field, descending; ok reports whether it had any.
func textScoreMergeSort(sortSpec bson.D) (merge bson.D, ok bool) {
	for i, e := range sortSpec {
		m, isDoc := e.Value.(bson.D)
		if !isDoc || len(m) != 1 || m[0].Key != "$meta" || m[0].Value != "textScore" {
			continue
		}
		if !ok {
			merge, ok = slices.Clone(sortSpec), true
		}
		merge[i] = bson.E{Key: textScoreMergeField, Value: int32(-1)}
	}
	if !ok {
		return sortSpec, false
	}
	return merge, true
}

// withTextScoreProjection makes the shards' projection carry the score
// in the merge field (replacing what sortProjection may have added for
// it) and has the router strip it.
func withTextScoreProjection(shardCmd bson.D, strip []string) (bson.D, []string) {
	proj := slices.DeleteFunc(slices.Clone(docField(shardCmd, "projection")),
		func(e bson.E) bool { return e.Key == textScoreMergeField })
	proj = append(proj, bson.E{Key: textScoreMergeField, Value: bson.D{{Key: "$meta", Value: "textScore"}}})
	if !slices.Contains(strip, textScoreMergeField) {
		strip = append(strip, textScoreMergeField)
	}
	return setField(shardCmd, "projection", proj), strip
}
