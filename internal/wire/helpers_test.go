package wire

import (
	"encoding/binary"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// raw marshals d or fails the test.
func raw(tb testing.TB, d bson.D) bson.Raw {
	tb.Helper()
	b, err := bson.Marshal(d)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// le32 is a little-endian int32.
func le32(v int32) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(v)) }

// cat concatenates byte slices.
func cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// wantKind checks err is an *Error of kind (nil kind: no error).
func wantKind(tb testing.TB, err, kind error) {
	tb.Helper()
	if kind == nil {
		if err != nil {
			tb.Fatalf("unexpected error: %v", err)
		}
		return
	}
	var we *Error
	if !errors.As(err, &we) {
		tb.Fatalf("error %v (%T) is not a *wire.Error of kind %v", err, err, kind)
	}
	if !errors.Is(err, kind) {
		tb.Fatalf("error %v has kind %v, want %v", err, we.Kind, kind)
	}
}

// helloMsg builds an OP_MSG hello body as the Go driver sends it.
func helloMsg(tb testing.TB) []byte {
	return AppendMsg(nil, 1, 0, 0, raw(tb, bson.D{
		{Key: "hello", Value: int32(1)},
		{Key: "helloOk", Value: true},
		{Key: "compression", Value: bson.A{"zstd", "snappy"}},
		{Key: "$db", Value: "admin"},
	}))
}

// isMasterQuery builds an OP_QUERY isMaster handshake as a legacy driver sends it.
func isMasterQuery(tb testing.TB) []byte {
	return AppendQuery(nil, 7, &Query{
		FullCollectionName: "admin.$cmd",
		NumberToReturn:     -1,
		Query: raw(tb, bson.D{
			{Key: "isMaster", Value: int32(1)},
			{Key: "helloOk", Value: true},
			{Key: "client", Value: bson.D{{Key: "driver", Value: bson.D{{Key: "name", Value: "test"}}}}},
		}),
	})
}
