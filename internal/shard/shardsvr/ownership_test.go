package shardsvr

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/shard/configsvr"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// TestReadFilter: sh0 owns x < 0 (table); a versioned read gets a filter
// keeping what sh0 owns, from the metadata its check loaded; unversioned,
// UNSHARDED and IGNORED reads and unsharded collections get none; a
// version the cached metadata no longer matches is StaleConfig.
func TestReadFilter(t *testing.T) {
	ctx := context.Background()
	src := &memSource{tables: map[string]*routing.ChunkManager{"db.c": table(t, "sh1")}, dbs: map[string]configsvr.Database{}}
	s := newState(src, true)
	if err := s.CheckShardVersion(ctx, "db", find(ver(1, 0))); err != nil {
		t.Fatal(err)
	}
	f, err := s.ReadFilter("db", find(ver(1, 0)))
	if err != nil || f == nil {
		t.Fatalf("filter %v %v", f, err)
	}
	for _, tc := range []struct {
		doc  bson.D
		owns bool
	}{
		{bson.D{{Key: "x", Value: -5}}, true},
		{bson.D{{Key: "x", Value: 0}}, false},
		{bson.D{{Key: "x", Value: 5}}, false},
		{bson.D{{Key: "_id", Value: 1}}, true}, // a missing key is null, below 0
		{bson.D{{Key: "x", Value: bson.A{-1}}}, false},
	} {
		if got, err := f.Owns(tc.doc); err != nil || got != tc.owns {
			t.Errorf("Owns(%v) = %v %v, want %v", tc.doc, got, err, tc.owns)
		}
	}
	for name, cmd := range map[string]bson.D{
		"unversioned": {{Key: "find", Value: "c"}},
		"UNSHARDED":   find(Unsharded),
		"IGNORED":     find(Ignored),
		"unsharded":   {{Key: "find", Value: "u"}, {Key: "shardVersion", Value: ShardVersionDoc(Unsharded)}},
		"not loaded":  {{Key: "find", Value: "other"}, {Key: "shardVersion", Value: ShardVersionDoc(ver(1, 0))}},
	} {
		if f, err := s.ReadFilter("db", cmd); f != nil || err != nil {
			t.Errorf("%s: %v %v", name, f, err)
		}
	}
	// The metadata moves on to 2|0 (another request refreshed it): a read
	// checked at 1|0 is refused rather than filtered with other chunks.
	coll := table(t, "sh1").Collection()
	m, err := routing.New(coll, []routing.Chunk{
		{Min: bson.D{{Key: "x", Value: bson.MinKey{}}}, Max: bson.D{{Key: "x", Value: 0}}, Shard: "sh1", Lastmod: ver(2, 0)},
		{Min: bson.D{{Key: "x", Value: 0}}, Max: bson.D{{Key: "x", Value: bson.MaxKey{}}}, Shard: "sh0", Lastmod: ver(2, 1)},
	})
	if err != nil {
		t.Fatal(err)
	}
	src.set("db.c", m)
	if err := s.CheckShardVersion(ctx, "db", find(ver(2, 1))); err != nil {
		t.Fatal(err)
	}
	_, err = s.ReadFilter("db", find(ver(1, 0)))
	checkStale(t, err, StaleConfig, nil)
	f, err = s.ReadFilter("db", find(ver(2, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if owns, _ := f.Owns(bson.D{{Key: "x", Value: 5}}); !owns {
		t.Fatal("after the move sh0 does not own x: 5")
	}
}
