package shardsvr

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// BenchmarkOwns is the per-document cost of the SHARDING_FILTER decision
// (key extraction + chunk lookup) on a range and a hashed key.
func BenchmarkOwns(b *testing.B) {
	doc := bson.D{{Key: "_id", Value: int32(7)}, {Key: "x", Value: int32(-5)}, {Key: "pad", Value: "some payload"}}
	hashed := routing.Collection{NS: "db.h", Key: key.MustParse(bson.D{{Key: "x", Value: "hashed"}}), Epoch: epoch, Timestamp: ts,
		UUID: bson.Binary{Subtype: 4, Data: make([]byte, 16)}}
	hm, err := routing.New(hashed, []routing.Chunk{
		{Min: bson.D{{Key: "x", Value: bson.MinKey{}}}, Max: bson.D{{Key: "x", Value: int64(0)}}, Shard: "sh0", Lastmod: ver(1, 0)},
		{Min: bson.D{{Key: "x", Value: int64(0)}}, Max: bson.D{{Key: "x", Value: bson.MaxKey{}}}, Shard: "sh1", Lastmod: ver(1, 1)},
	})
	if err != nil {
		b.Fatal(err)
	}
	for name, cm := range map[string]*routing.ChunkManager{"range": table(&testing.T{}, "sh1"), "hashed": hm} {
		o := ownership{cm: cm, shard: "sh0"}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := o.Owns(doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkOwnsStored is the SHARDING_FILTER decision for a stored row
// of a find without a query filter (hashed key, a 12-field document):
// decoding the row then Owns, as before, against OwnsRaw on its bytes.
func BenchmarkOwnsStored(b *testing.B) {
	doc := bson.D{{Key: "_id", Value: int32(7)}}
	for i := range 10 {
		doc = append(doc, bson.E{Key: fmt.Sprintf("f%d", i), Value: fmt.Sprintf("payload %d of the document", i)})
	}
	doc = append(doc, bson.E{Key: "x", Value: int32(-5)})
	raw, err := bson.Marshal(doc)
	if err != nil {
		b.Fatal(err)
	}
	o := ownership{cm: twoChunks(b, bson.D{{Key: "x", Value: "hashed"}}, bson.D{{Key: "x", Value: int64(0)}}), shard: "sh0"}
	b.Run("decode+Owns", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			d, err := bsonx.Decode(raw)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := o.Owns(d); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("OwnsRaw", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := o.OwnsRaw(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCountOwned is a count without a query filter on a shard of a
// 50000-document collection sharded on {x: 1}, 100 of them orphans
// (x >= 49900, a range another shard owns): from the document count
// less the orphans found through the index, against scanning every
// document through the filter.
func BenchmarkCountOwned(b *testing.B) {
	docs := make([]bson.D, 50000)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "x", Value: int32(i)}, {Key: "pad", Value: "0123456789abcdef0123456789abcdef"}}
	}
	e, _ := scanEngine(b, []bson.D{spec("x_1", bson.D{{Key: "x", Value: 1}})}, docs)
	o := ownership{cm: twoChunks(b, bson.D{{Key: "x", Value: 1}}, bson.D{{Key: "x", Value: int32(49900)}}), shard: "sh0"}
	for name, own := range map[string]exec.OwnershipFilter{"count-orphans": o, "scan": ownsOnly{o}} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if n, err := e.CountAt(nil, own, "db", "c", nil, 0, 0, nil, exec.Collation{}); err != nil || n != 49900 {
					b.Fatalf("count %d %v", n, err)
				}
			}
		})
	}
}
