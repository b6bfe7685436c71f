package shardsvr

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// twoChunks is a routing table of pattern split at mid: sh0 below, sh1
// from mid up.
func twoChunks(t testing.TB, pattern, mid bson.D) *routing.ChunkManager {
	t.Helper()
	p := key.MustParse(pattern)
	coll := routing.Collection{NS: "db.r", Key: p, Epoch: epoch, Timestamp: ts, UUID: bson.Binary{Subtype: 4, Data: make([]byte, 16)}}
	m, err := routing.New(coll, []routing.Chunk{
		{Min: p.GlobalMin(), Max: mid, Shard: "sh0", Lastmod: ver(1, 0)},
		{Min: mid, Max: p.GlobalMax(), Shard: "sh1", Lastmod: ver(1, 1)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestOwnsRaw: deciding from the stored bytes agrees with deciding from
// the decoded document, for range, hashed and compound dotted keys and
// documents with missing fields, scalars and arrays on the path, nested
// documents as values and several number types.
func TestOwnsRaw(t *testing.T) {
	tables := map[string]*routing.ChunkManager{
		"range":  twoChunks(t, bson.D{{Key: "x", Value: 1}}, bson.D{{Key: "x", Value: 0}}),
		"hashed": twoChunks(t, bson.D{{Key: "x", Value: "hashed"}}, bson.D{{Key: "x", Value: int64(0)}}),
		"compound dotted": twoChunks(t, bson.D{{Key: "a.b", Value: 1}, {Key: "x", Value: "hashed"}},
			bson.D{{Key: "a.b", Value: "m"}, {Key: "x", Value: int64(0)}}),
	}
	docs := []bson.D{{{Key: "_id", Value: 1}}}
	for _, x := range []any{int32(-5), int32(5), int64(7), -2.5, 0.0, "s", nil, bson.D{{Key: "k", Value: 1}}, bson.A{1}, bson.MinKey{}, true} {
		for _, ab := range []any{"a", "z", int32(3), nil, bson.A{"q"}, bson.D{{Key: "c", Value: 1}}} {
			docs = append(docs,
				bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: x}, {Key: "a", Value: bson.D{{Key: "b", Value: ab}}}},
				bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: ab}, {Key: "x", Value: x}}) // a scalar, array or document at a
		}
	}
	for name, cm := range tables {
		o := ownership{cm: cm, shard: "sh0"}
		seen := map[bool]int{}
		for _, d := range docs {
			raw, err := bson.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			want, errD := o.Owns(d)
			got, errR := o.OwnsRaw(raw)
			if got != want || (errD == nil) != (errR == nil) {
				t.Fatalf("%s: %v: OwnsRaw %v %v, Owns %v %v", name, d, got, errR, want, errD)
			}
			seen[got]++
		}
		if seen[true] == 0 || seen[false] == 0 {
			t.Fatalf("%s: every document decided alike: %v", name, seen)
		}
	}
	if _, err := (ownership{cm: tables["range"], shard: "sh0"}).OwnsRaw(bson.Raw{14, 0, 0, 0, 2, 'x', 0, 100, 0, 0, 0, 'a', 0, 0}); err == nil {
		t.Fatal("OwnsRaw of malformed bytes: no error")
	}
}

// TestRawShardKey: the key read from bytes, a missing field null.
func TestRawShardKey(t *testing.T) {
	raw, _ := bson.Marshal(bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: bson.D{{Key: "b", Value: "v"}}}})
	k, ok, err := rawShardKey(key.MustParse(bson.D{{Key: "a.b", Value: 1}, {Key: "c", Value: 1}}), raw)
	if !ok || err != nil || len(k) != 2 || k[0] != (bson.E{Key: "a.b", Value: "v"}) || k[1] != (bson.E{Key: "c", Value: nil}) {
		t.Fatal(k, ok, err)
	}
}
