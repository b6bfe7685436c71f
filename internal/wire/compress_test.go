package wire

import (
	"bytes"
	"compress/zlib"
	"runtime"
	"testing"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"
	"go.mongodb.org/mongo-driver/v2/bson"
)

var allCompressors = []byte{CompressorNoop, CompressorSnappy, CompressorZlib, CompressorZstd}

func TestCompressorID(t *testing.T) {
	for _, name := range []string{"noop", "snappy", "zlib", "zstd"} {
		id, ok := CompressorID(name)
		if !ok || CompressorName(id) != name {
			t.Fatalf("%s -> %d, %v -> %q", name, id, ok, CompressorName(id))
		}
	}
	if _, ok := CompressorID("lz4"); ok {
		t.Fatal("lz4 accepted")
	}
	if CompressorName(9) != "" {
		t.Fatal("unknown id has a name")
	}
}

func TestCompressedRoundTrip(t *testing.T) {
	inner := helloMsg(t)
	big := AppendMsg(nil, 1, 0, 0, raw(t, bson.D{{Key: "s", Value: string(bytes.Repeat([]byte("abc"), 100_000))}}))
	for _, id := range allCompressors {
		for _, msg := range [][]byte{inner, big} {
			out, err := AppendCompressed([]byte("xx"), 8, 9, OpMsg, id, msg[HeaderLen:])
			wantKind(t, err, nil)
			h, body, err := ReadMessage(bytes.NewReader(out[2:]), 0)
			wantKind(t, err, nil)
			if h.OpCode != OpCompressed || h.RequestID != 8 || h.ResponseTo != 9 {
				t.Fatalf("%s: header %+v", CompressorName(id), h)
			}
			op, payload, err := ParseCompressed(body, 0)
			wantKind(t, err, nil)
			if op != OpMsg || !bytes.Equal(payload, msg[HeaderLen:]) {
				t.Fatalf("%s: payload differs (op %v)", CompressorName(id), op)
			}
		}
	}
	if _, err := AppendCompressed(nil, 1, 0, OpMsg, 7, inner); err == nil {
		t.Fatal("unknown compressor accepted by AppendCompressed")
	}
}

// compressed builds an OP_COMPRESSED body by hand so sizes can lie.
func compressed(op OpCode, size int32, id byte, payload []byte) []byte {
	return cat(le32(int32(op)), le32(size), []byte{id}, payload)
}

func zlibBytes(tb testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func zstdBytes(b []byte, fcs bool) []byte {
	e, _ := zstd.NewWriter(nil, zstd.WithSingleSegment(fcs), zstd.WithEncoderCRC(true))
	if !fcs {
		// Streaming writes leave the frame content size out.
		var buf bytes.Buffer
		e.Reset(&buf)
		e.Write(b)
		e.Close()
		return buf.Bytes()
	}
	return e.EncodeAll(b, nil)
}

func TestParseCompressedErrors(t *testing.T) {
	payload := helloMsg(t)[HeaderLen:]
	n := int32(len(payload))
	bomb := make([]byte, 10_000_000) // 10 MB of zeros compresses to a few KB
	tests := []struct {
		name string
		in   []byte
		max  int32
		kind error
	}{
		{"short", make([]byte, 8), 0, ErrTruncated},
		{"unknown compressor", compressed(OpMsg, n, 4, payload), 0, ErrCompressor},
		{"nested", compressed(OpCompressed, n, 0, payload), 0, ErrMalformed},
		{"negative size", compressed(OpMsg, -1, 0, payload), 0, ErrMessageTooSmall},
		{"size over max", compressed(OpMsg, 1000, 0, payload), 1000, ErrMessageTooLarge},
		{"size over default max", compressed(OpMsg, DefaultMaxMessageSize, 1, payload), 0, ErrMessageTooLarge},
		{"noop size lie", compressed(OpMsg, n+1, 0, payload), 0, ErrDecompress},
		{"snappy size lie", compressed(OpMsg, n-1, 1, snappy.Encode(nil, payload)), 0, ErrDecompress},
		{"snappy corrupt", compressed(OpMsg, n, 1, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 1}), 0, ErrDecompress},
		{"snappy bomb", compressed(OpMsg, 1000, 1, snappy.Encode(nil, bomb)), 0, ErrDecompress},
		{"zlib size lie low", compressed(OpMsg, n-1, 2, zlibBytes(t, payload)), 0, ErrDecompress},
		{"zlib size lie high", compressed(OpMsg, n+1, 2, zlibBytes(t, payload)), 0, ErrDecompress},
		{"zlib corrupt", compressed(OpMsg, n, 2, payload), 0, ErrDecompress},
		{"zlib bomb", compressed(OpMsg, 1000, 2, zlibBytes(t, bomb)), 0, ErrDecompress},
		{"zstd size lie low", compressed(OpMsg, n-1, 3, zstdBytes(payload, true)), 0, ErrDecompress},
		{"zstd size lie high", compressed(OpMsg, n+1, 3, zstdBytes(payload, true)), 0, ErrDecompress},
		{"zstd no fcs size lie", compressed(OpMsg, n-1, 3, zstdBytes(payload, false)), 0, ErrDecompress},
		{"zstd corrupt", compressed(OpMsg, n, 3, payload), 0, ErrDecompress},
		{"zstd bomb", compressed(OpMsg, 1000, 3, zstdBytes(bomb, true)), 0, ErrDecompress},
		{"zstd bomb no fcs", compressed(OpMsg, 1000, 3, zstdBytes(bomb, false)), 0, ErrDecompress},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ParseCompressed(tc.in, tc.max)
			wantKind(t, err, tc.kind)
			if !IsFatal(err) {
				t.Fatal("OP_COMPRESSED errors are fatal")
			}
		})
	}
}

// A decompression bomb must not allocate much beyond the declared size.
func TestDecompressionBombAllocations(t *testing.T) {
	bomb := make([]byte, 20_000_000)
	cases := []struct {
		name string
		in   []byte
	}{
		{"snappy", compressed(OpMsg, 1000, 1, snappy.Encode(nil, bomb))},
		{"zlib", compressed(OpMsg, 1000, 2, zlibBytes(t, bomb))},
		{"zstd", compressed(OpMsg, 1000, 3, zstdBytes(bomb, true))},
		{"zstd no fcs", compressed(OpMsg, 1000, 3, zstdBytes(bomb, false))},
	}
	ParseCompressed(cases[3].in, 0) // warm the shared decoder
	for _, tc := range cases {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, _, err := ParseCompressed(tc.in, 0)
		runtime.ReadMemStats(&after)
		wantKind(t, err, ErrDecompress)
		if n := after.TotalAlloc - before.TotalAlloc; n > 2<<20 {
			t.Errorf("%s: bomb allocated %d bytes", tc.name, n)
		} else {
			t.Logf("%s: %d bytes", tc.name, n)
		}
	}
}
