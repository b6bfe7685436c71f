package routing

import (
	"slices"
	"testing"
)

// MongoDB's CalculateHashedSplitPointsTest vectors
// (initial_split_policy_test.cpp).
func TestHashedSplitPoints(t *testing.T) {
	p := testCollection(t, `{"a":"hashed"}`).Key
	for _, tc := range []struct {
		n    int
		want []int64
	}{
		{1, nil},
		{2, []int64{0}},
		{4, []int64{-4611686018427387902, 0, 4611686018427387902}},
		{5, []int64{-5534023222112865483, -1844674407370955161, 1844674407370955161, 5534023222112865483}},
	} {
		var got []int64
		for _, pt := range hashedSplitPoints(p, tc.n) {
			got = append(got, pt[0].Value.(int64))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("hashedSplitPoints(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
}

// Fewer chunks than shards: the first chunk goes to the primary.
func TestInitialChunksPrimaryFirst(t *testing.T) {
	coll := testCollection(t, `{"a":"hashed"}`)
	chunks, err := InitialChunks(coll, InitialSplit{Primary: "p", Shards: []string{"s0", "s1", "p"}, ChunksPerShard: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 3 || chunks[0].Shard != "s0" {
		t.Errorf("three shards, one each:\n%s", formatChunks(chunks))
	}
	coll = testCollection(t, `{"a":1}`)
	chunks, _ = InitialChunks(coll, InitialSplit{Primary: "p", Shards: []string{"s0", "s1", "p"}})
	if len(chunks) != 1 || chunks[0].Shard != "p" || chunks[0].Lastmod != version(1, 0) {
		t.Errorf("range key:\n%s", formatChunks(chunks))
	}
	if _, err := InitialChunks(coll, InitialSplit{}); err == nil {
		t.Error("no primary accepted")
	}
}
