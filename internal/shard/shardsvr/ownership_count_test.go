package shardsvr

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// chunksAt is a routing table of pattern cut at the given keys, chunk i
// on shards[i].
func chunksAt(t *testing.T, pattern bson.D, cuts []bson.D, shards []string) *routing.ChunkManager {
	t.Helper()
	p := key.MustParse(pattern)
	coll := routing.Collection{NS: "db.c", Key: p, Epoch: epoch, Timestamp: ts, UUID: bson.Binary{Subtype: 4, Data: make([]byte, 16)}}
	bounds := append(append([]bson.D{p.GlobalMin()}, cuts...), p.GlobalMax())
	var chunks []routing.Chunk
	for i := range len(bounds) - 1 {
		chunks = append(chunks, routing.Chunk{Min: bounds[i], Max: bounds[i+1], Shard: shards[i], Lastmod: ver(1, uint32(i))})
	}
	m, err := routing.New(coll, chunks)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// ownsOnly hides CountUnowned: counting with it scans.
type ownsOnly struct{ exec.OwnershipFilter }

// TestCountUnowned: a count without a query filter, taken from the
// document count less the unowned documents found through the shard key
// index, equals the count scanning every document through the filter,
// for range and hashed keys, on each shard; without a usable index (none,
// multikey) CountUnowned declines and the count scans.
func TestCountUnowned(t *testing.T) {
	x1 := bson.D{{Key: "x", Value: 1}}
	xh := bson.D{{Key: "x", Value: "hashed"}}
	x := func(v any) bson.D { return bson.D{{Key: "x", Value: v}} }
	cases := []struct {
		name     string
		pattern  bson.D
		specs    []bson.D
		cuts     []bson.D
		shards   []string
		multikey bool
		declines bool
	}{
		{"range", x1, []bson.D{spec("x_1", x1)}, []bson.D{x(int32(-500)), x(int32(0)), x("s0500")}, []string{"sh0", "sh1", "sh0", "sh1"}, false, false},
		{"hashed, merged ranges", xh, []bson.D{spec("x_hashed", xh)}, []bson.D{x(int64(-1) << 62), x(int64(0)), x(int64(1) << 62)}, []string{"sh0", "sh1", "sh1", "sh0"}, false, false},
		{"no index", x1, nil, []bson.D{x(int32(0))}, []string{"sh0", "sh1"}, false, true},
		{"multikey", x1, []bson.D{spec("x_1", x1)}, []bson.D{x(int32(0))}, []string{"sh0", "sh1"}, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			docs := mixedDocs(1400)
			if c.multikey {
				docs = append(docs, bson.D{{Key: "_id", Value: int32(5000)}, {Key: "x", Value: bson.A{int32(-1), int32(1)}}})
			}
			e, col := scanEngine(t, c.specs, docs)
			cm := chunksAt(t, c.pattern, c.cuts, c.shards)
			total := int64(0)
			for _, shard := range []string{"sh0", "sh1"} {
				o := ownership{cm: cm, shard: shard}
				_, ok, err := o.CountUnowned(col, nil)
				if err != nil || ok == c.declines {
					t.Fatalf("%s: CountUnowned ok %v %v", shard, ok, err)
				}
				fast, err := e.CountAt(nil, o, "db", "c", nil, 0, 0, nil, exec.Collation{})
				if err != nil {
					t.Fatal(err)
				}
				scan, err := e.CountAt(nil, ownsOnly{o}, "db", "c", nil, 0, 0, nil, exec.Collation{})
				if err != nil {
					t.Fatal(err)
				}
				if fast != scan || scan == 0 {
					t.Fatalf("%s owns %d by count, %d by scan", shard, fast, scan)
				}
				if n, err := e.CountAt(nil, o, "db", "c", nil, 10, 20, nil, exec.Collation{}); err != nil || n != min(max(scan-10, 0), 20) {
					t.Fatalf("%s: skip 10 limit 20: %d %v", shard, n, err)
				}
				total += scan
			}
			if want := int64(len(docs)); c.multikey && total != want-1 || !c.multikey && total != want {
				t.Fatalf("the shards own %d of %d documents", total, len(docs))
			}
		})
	}
}
