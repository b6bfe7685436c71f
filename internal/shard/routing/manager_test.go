package routing

import (
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/key"
)

func threeChunks(t *testing.T) (Collection, []Chunk) {
	coll := testCollection(t, `{"a":1}`)
	return coll, chunksFromTable(t, coll.Key, "s0: MinKey\ns1: {\"a\":0}\ns0: {\"a\":10}")
}

func TestNewSortsAndIndexes(t *testing.T) {
	coll, chunks := threeChunks(t)
	chunks[2].Lastmod = version(2, 0) // as if migrated
	reversed := slices.Clone(chunks)
	slices.Reverse(reversed)
	m, err := New(coll, reversed)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Chunks()[1].Shard; got != "s1" {
		t.Errorf("chunks not sorted by min: second is on %s", got)
	}
	if got := m.CollectionVersion(); got != version(2, 0) {
		t.Errorf("CollectionVersion = %s", got)
	}
	for shard, want := range map[string]ChunkVersion{
		"s0": version(2, 0), "s1": version(1, 1), "s9": {Epoch: testEpoch, Timestamp: testTS},
	} {
		if got := m.PlacementVersion(shard); got != want {
			t.Errorf("PlacementVersion(%s) = %s, want %s", shard, got, want)
		}
	}
	if got := m.Shards(); !slices.Equal(got, []string{"s0", "s1"}) {
		t.Errorf("Shards = %v", got)
	}
	if on := m.ChunksOn("s0"); len(on) != 2 || on[0].Lastmod != version(1, 0) || len(m.ChunksOn("s9")) != 0 {
		t.Errorf("ChunksOn(s0) = %s", formatChunks(on))
	}
}

func TestNewRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func([]Chunk) []Chunk
		msg  string
	}{
		{"gap", func(c []Chunk) []Chunk { c[1].Max = bson.D{{Key: "a", Value: int32(5)}}; return c },
			"Gap exists in the routing table between chunks [{ a: 0 }, { a: 5 }) and [{ a: 10 }, { a: MaxKey })"},
		{"overlap", func(c []Chunk) []Chunk { c[1].Max = bson.D{{Key: "a", Value: int32(20)}}; return c },
			"Overlap exists in the routing table between chunks [{ a: 0 }, { a: 20 }) and [{ a: 10 }, { a: MaxKey })"},
		{"duplicate", func(c []Chunk) []Chunk { return append(c, c[1]) },
			"Overlap exists in the routing table between chunks [{ a: 0 }, { a: 10 }) and [{ a: 0 }, { a: 10 })"},
		{"short", func(c []Chunk) []Chunk { return c[:2] },
			"routing table of db.c ends at { a: 10 }, not { a: MaxKey }"},
		{"unset version", func(c []Chunk) []Chunk { c[0].Lastmod = version(0, 0); return c },
			"chunk [{ a: MinKey }, { a: 0 }) of db.c has version 0|0"},
		{"other epoch", func(c []Chunk) []Chunk { c[0].Lastmod.Epoch = bson.ObjectID{9}; return c },
			"chunk [{ a: MinKey }, { a: 0 }) of db.c has version 1|0||090000000000000000000000||Timestamp(1700000000, 1) of another collection generation"},
	} {
		coll, chunks := threeChunks(t)
		_, err := New(coll, tc.edit(chunks))
		me, ok := err.(*mongoerr.Error)
		if !ok || me.Code != mongoerr.ConflictingOperationInProgress || me.Msg != tc.msg {
			t.Errorf("%s: New = %v; want ConflictingOperationInProgress %q", tc.name, err, tc.msg)
		}
	}
}

func TestFindChunk(t *testing.T) {
	coll, chunks := threeChunks(t)
	m, _ := New(coll, chunks)
	for _, tc := range []struct {
		k     bson.D
		shard string
	}{
		{bson.D{{Key: "a", Value: bson.MinKey{}}}, "s0"},
		{bson.D{{Key: "a", Value: nil}}, "s0"},
		{bson.D{{Key: "a", Value: -0.5}}, "s0"},
		{bson.D{{Key: "a", Value: int64(0)}}, "s1"},
		{bson.D{{Key: "a", Value: 9.99}}, "s1"},
		{bson.D{{Key: "a", Value: 10.0}}, "s0"},
		{bson.D{{Key: "a", Value: "zzz"}}, "s0"},
	} {
		c, err := m.FindChunk(tc.k)
		if err != nil || c.Shard != tc.shard || !c.Contains(tc.k) {
			t.Errorf("FindChunk(%s) = %s on %s, %v; want %s", key.Format(tc.k), c.Range(), c.Shard, err, tc.shard)
		}
	}
	for _, k := range []bson.D{{}, {{Key: "a", Value: bson.MaxKey{}}}, {{Key: "a", Value: int32(1)}, {Key: "b", Value: int32(1)}}} {
		if _, err := m.FindChunk(k); !mongoerr.Is(err, mongoerr.ShardKeyNotFound) {
			t.Errorf("FindChunk(%s) = %v; want ShardKeyNotFound", key.Format(k), err)
		}
	}
}

// Split leaves the receiver unchanged (managers are immutable).
func TestSplitIsPure(t *testing.T) {
	coll, chunks := threeChunks(t)
	m, _ := New(coll, chunks)
	before := formatChunks(m.Chunks())
	n, err := m.Split(chunks[1].Min, []bson.D{{{Key: "a", Value: int32(5)}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := formatChunks(m.Chunks()); got != before {
		t.Errorf("Split changed its receiver:\n%s", got)
	}
	if len(n.Chunks()) != 4 || n.CollectionVersion() != version(1, 4) || n.PlacementVersion("s1") != version(1, 4) {
		t.Errorf("after split:\n%s", formatChunks(n.Chunks()))
	}
}
