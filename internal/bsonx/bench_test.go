package bsonx_test

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// Fixtures from a YCSB-like load: the insert and find commands a driver
// sends (documents in the body) and the document the server stores.

func lsid() bson.D {
	uuid := bson.Binary{Subtype: 4, Data: []byte("0123456789abcdef")}
	return bson.D{{Key: "id", Value: uuid}}
}

func userDoc() bson.D {
	d := bson.D{{Key: "_id", Value: "user1234567890"}}
	for i := 0; i < 10; i++ {
		data := make([]byte, 100)
		for j := range data {
			data[j] = byte(i*100 + j)
		}
		d = append(d, bson.E{Key: fmt.Sprintf("field%d", i), Value: bson.Binary{Data: data}})
	}
	return d
}

func ycsbInsertDoc() bson.D {
	return bson.D{
		{Key: "insert", Value: "usertable"}, {Key: "$db", Value: "ycsb"},
		{Key: "ordered", Value: true}, {Key: "lsid", Value: lsid()},
		{Key: "documents", Value: bson.A{userDoc()}},
	}
}

func ycsbFindDoc() bson.D {
	return bson.D{
		{Key: "find", Value: "usertable"},
		{Key: "filter", Value: bson.D{{Key: "_id", Value: "user1234567890"}}},
		{Key: "limit", Value: int32(1)}, {Key: "singleBatch", Value: true},
		{Key: "lsid", Value: lsid()}, {Key: "$db", Value: "ycsb"},
	}
}

func ycsbInsert() []byte { return mustRaw(ycsbInsertDoc()) }
func ycsbFind() []byte   { return mustRaw(ycsbFindDoc()) }
func storedDoc() []byte  { return mustRaw(userDoc()) }

var benchDocs = []struct {
	name string
	doc  func() bson.D
}{
	{"insert", ycsbInsertDoc}, {"find", ycsbFindDoc}, {"stored", userDoc},
}

func BenchmarkDecode(b *testing.B) {
	for _, bd := range benchDocs {
		raw := mustRaw(bd.doc())
		b.Run(bd.name+"/bsonx", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bsonx.Decode(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bd.name+"/legacy", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bsonx.DecodeLegacy(raw, bsonx.MaxWireDepth); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bd.name+"/unmarshal", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var d bson.D
				if err := bson.Unmarshal(raw, &d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncode(b *testing.B) {
	for _, bd := range benchDocs {
		doc := bd.doc()
		b.Run(bd.name+"/bsonx", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bsonx.Encode(doc); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bd.name+"/append", func(b *testing.B) {
			b.ReportAllocs()
			var buf []byte
			for b.Loop() {
				var err error
				if buf, err = bsonx.AppendDocument(buf[:0], doc); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bd.name+"/marshal", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bson.Marshal(doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
