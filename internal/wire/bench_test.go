package wire

import (
	"bytes"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func benchBody(b *testing.B) []byte {
	return raw(b, bson.D{
		{Key: "find", Value: "usertable"},
		{Key: "filter", Value: bson.D{{Key: "_id", Value: "user6284781860667377211"}}},
		{Key: "limit", Value: int32(1)}, {Key: "singleBatch", Value: true},
		{Key: "lsid", Value: bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: make([]byte, 16)}}}},
		{Key: "$db", Value: "ycsb"},
	})
}

func BenchmarkParseMsg(b *testing.B) {
	msg := AppendMsg(nil, 1, 0, 0, benchBody(b))[HeaderLen:]
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseMsg(msg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendMsg(b *testing.B) {
	body := benchBody(b)
	buf := make([]byte, 0, 4096)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendMsg(buf[:0], 1, 2, 0, body)
	}
}

func BenchmarkAppendMsgChecksum(b *testing.B) {
	body := benchBody(b)
	buf := make([]byte, 0, 4096)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendMsg(buf[:0], 1, 2, ChecksumPresent, body)
	}
}

func BenchmarkReadMessageBuf(b *testing.B) {
	msg := AppendMsg(nil, 1, 0, 0, benchBody(b))
	r := bytes.NewReader(msg)
	buf := make([]byte, 0, 4096)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(msg)
		var err error
		if _, _, buf, err = ReadMessageBuf(r, buf, 0); err != nil {
			b.Fatal(err)
		}
	}
}
