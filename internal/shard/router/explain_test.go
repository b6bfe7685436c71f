package router

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

func TestExplainStage(t *testing.T) {
	find := bson.D{{Key: "find", Value: "c"}}
	sorted := bson.D{{Key: "find", Value: "c"}, {Key: "sort", Value: bson.D{{Key: "a", Value: 1}}}}
	for _, tc := range []struct {
		inner bson.D
		n     int
		want  string
	}{
		{find, 1, stageSingleShard},
		{find, 2, stageShardMerge},
		{sorted, 1, stageSingleShard},
		{sorted, 3, stageShardMergeSort},
		{bson.D{{Key: "update", Value: "c"}}, 2, stageShardWrite},
		{bson.D{{Key: "delete", Value: "c"}}, 1, stageSingleShard},
		{bson.D{{Key: "count", Value: "c"}}, 2, stageShardMerge},
	} {
		if got := explainStage(tc.inner, tc.n); got != tc.want {
			t.Errorf("explainStage(%v, %d) = %s, want %s", tc.inner, tc.n, got, tc.want)
		}
	}
}

func TestExplainFilter(t *testing.T) {
	q := bson.D{{Key: "x", Value: 1}}
	for _, inner := range []bson.D{
		{{Key: "find", Value: "c"}, {Key: "filter", Value: q}},
		{{Key: "count", Value: "c"}, {Key: "query", Value: q}},
		{{Key: "distinct", Value: "c"}, {Key: "key", Value: "y"}, {Key: "query", Value: q}},
		{{Key: "findAndModify", Value: "c"}, {Key: "query", Value: q}},
		{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: q}, {Key: "u", Value: bson.D{}}}}}},
		{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: q}, {Key: "limit", Value: 1}}}}},
	} {
		if got := explainFilter(inner); bsonx.CompareDocs(got, q) != 0 {
			t.Errorf("explainFilter(%v) = %v, want %v", inner, got, q)
		}
	}
	if got := explainFilter(bson.D{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{}}}); got != nil {
		t.Errorf("no statements: %v", got)
	}
}

// mongos's executionStats sum the shards' and keep each shard's stages;
// without the shards' executionStats there are none.
func TestExecStats(t *testing.T) {
	shard := func(name string, n, keys, docs int64) shardReply {
		return shardReply{shard: name, reply: bson.D{{Key: "executionStats", Value: bson.D{
			{Key: "nReturned", Value: n}, {Key: "executionTimeMillis", Value: int64(1)},
			{Key: "totalKeysExamined", Value: keys}, {Key: "totalDocsExamined", Value: docs},
			{Key: "executionStages", Value: bson.D{{Key: "stage", Value: "FETCH"}}}}}}}
	}
	es, ok := execStats([]shardReply{shard("a", 2, 3, 4), shard("b", 5, 6, 7)}, stageShardMerge, 9)
	if !ok {
		t.Fatal("no executionStats")
	}
	for k, want := range map[string]int64{"nReturned": 7, "totalKeysExamined": 9, "totalDocsExamined": 11, "executionTimeMillis": 9} {
		if v, _ := bsonx.Get(es, k); v != want {
			t.Errorf("%s = %v, want %d", k, v, want)
		}
	}
	stages := docField(es, "executionStages")
	if v, _ := bsonx.Get(stages, "totalChildMillis"); v != int64(2) {
		t.Errorf("totalChildMillis = %v", v)
	}
	if v, _ := bsonx.Get(stages, "shards"); len(v.(bson.A)) != 2 {
		t.Errorf("shards = %v", v)
	}
	if _, ok := execStats([]shardReply{shard("a", 1, 1, 1), {shard: "b", reply: bson.D{}}}, stageShardMerge, 1); ok {
		t.Error("executionStats with a shard that reported none")
	}
}
