package sharding

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/shard/key"
)

// TestAutoSplitVectorHashed: on a collection sharded on {h: "hashed"},
// autoSplitVector walks a chunk in hash order through the hashed index:
// its split keys are NumberLong hashes, increasing, inside the chunk, and
// cut it into pieces of about the size asked (each piece's documents,
// counted by hashing each document's h, between one and twice the
// average).
func TestAutoSplitVectorHashed(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "balancerStop", Value: 1}}).Err(), "balancerStop")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "hs.c"}, {Key: "key", Value: bson.D{{Key: "h", Value: "hashed"}}}}).Err(), "shardCollection")
	const n = 4000
	pad := strings.Repeat("p", 500)
	docs := make([]any, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "h", Value: int32(i)}, {Key: "pad", Value: pad}}
	}
	_, err := cl.Database("hs").Collection("c").InsertMany(ctxT(t), docs)
	must(t, err, "load")

	// The chunk holding h=0's hash, and its owner.
	h0, err := key.Hash(int32(0))
	must(t, err, "hash")
	chunk, owner := hashedChunk(t, tp, "hs.c", h0)
	cmd := bson.D{{Key: "autoSplitVector", Value: "c"}, {Key: "keyPattern", Value: bson.D{{Key: "h", Value: "hashed"}}},
		{Key: "min", Value: chunk.Lookup("min").Document()}, {Key: "max", Value: chunk.Lookup("max").Document()},
		{Key: "maxChunkSizeBytes", Value: int64(64 << 10)}}
	var res bson.M
	must(t, tp.shardClient(t, owner).Database("hs").RunCommand(ctxT(t), cmd).Decode(&res), "autoSplitVector")
	keys, _ := res["splitKeys"].(bson.A)
	lo, hi := hashBound(chunk.Lookup("min", "h")), hashBound(chunk.Lookup("max", "h"))
	// Documents of the chunk by hash, to check the pieces.
	var inChunk []int64
	for i := range n {
		hv, _ := key.Hash(int32(i))
		if hv >= lo && hv < hi {
			inChunk = append(inChunk, hv)
		}
	}
	perPiece := float64(len(inChunk)) / float64(len(keys)+1)
	t.Logf("chunk %v on %s: %d documents, %d split keys (~%.0f documents per piece)", chunk, owner, len(inChunk), len(keys), perPiece)
	if len(keys) < 3 {
		t.Fatalf("autoSplitVector of a ~%d KB chunk by 64 KB: %v", len(inChunk)/2, res)
	}
	prev := lo
	for i, k := range keys {
		v, ok := k.(bson.D)[0].Value.(int64)
		if !ok || v <= prev || v >= hi {
			t.Fatalf("split key %d = %v: not a NumberLong hash increasing inside [%d, %d)", i, k, lo, hi)
		}
		prev = v
	}
	bounds := append([]int64{lo}, make([]int64, 0, len(keys)+1)...)
	for _, k := range keys {
		bounds = append(bounds, k.(bson.D)[0].Value.(int64))
	}
	bounds = append(bounds, hi)
	for i := 0; i+1 < len(bounds); i++ {
		c := 0
		for _, hv := range inChunk {
			if hv >= bounds[i] && hv < bounds[i+1] {
				c++
			}
		}
		if c < 1 || float64(c) > 2*perPiece {
			t.Errorf("piece %d [%d, %d) holds %d documents (average %.0f)", i, bounds[i], bounds[i+1], c, perPiece)
		}
	}
}

// hashedChunk returns the chunk of ns holding hash hv and its shard.
func hashedChunk(t *testing.T, tp *topo, ns string, hv int64) (bson.Raw, string) {
	t.Helper()
	cfg, err := tp.cfg.Client(tp.cfg.Members()[0])
	must(t, err, "config client")
	var coll bson.M
	must(t, cfg.Database("config").Collection("collections").FindOne(ctxT(t), bson.D{{Key: "_id", Value: ns}}).Decode(&coll), "config.collections")
	cur, err := cfg.Database("config").Collection("chunks").Find(ctxT(t), bson.D{{Key: "uuid", Value: coll["uuid"]}})
	must(t, err, "config.chunks")
	var chunks []bson.Raw
	must(t, cur.All(ctxT(t), &chunks), "chunks")
	for _, c := range chunks {
		if hashBound(c.Lookup("min", "h")) <= hv && hv < hashBound(c.Lookup("max", "h")) {
			return c, c.Lookup("shard").StringValue()
		}
	}
	t.Fatalf("no chunk of %s holds hash %d", ns, hv)
	return nil, ""
}

// hashBound is a hashed chunk bound as a number (MinKey/MaxKey at the ends).
func hashBound(v bson.RawValue) int64 {
	switch v.Type {
	case bson.TypeMinKey:
		return -1 << 63
	case bson.TypeMaxKey:
		return 1<<63 - 1
	}
	n, _ := v.AsInt64OK()
	return n
}
