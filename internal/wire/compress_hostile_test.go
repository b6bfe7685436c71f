package wire

import (
	"bytes"
	"compress/zlib"
	"errors"
	"runtime"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// allocSlack covers what decoding costs beside its output: pooled zlib
// readers and zstd block decoders rebuilt after a GC, error values.
const allocSlack = 256 << 10

// allocated returns the fewest bytes f allocated over three runs after a
// warm-up run (other goroutines can only add to TotalAlloc, so the minimum
// is f's own steady-state cost).
func allocated(f func()) uint64 {
	f()
	best := ^uint64(0)
	for range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		best = min(best, after.TotalAlloc-before.TotalAlloc)
	}
	return best
}

// claimingMax is an OP_COMPRESSED message (header included) whose
// uncompressedSize is the largest the default maximum allows and whose
// payload is a tiny, valid stream of nothing: issue #9's 37-byte message.
func claimingMax(id byte, payload []byte) []byte {
	body := compressed(OpMsg, DefaultMaxMessageSize-HeaderLen, id, payload)
	h := Header{MessageLength: int32(HeaderLen + len(body)), RequestID: 1, OpCode: OpCompressed}
	return append(AppendHeader(nil, h), body...)
}

// tinyZlib is a valid zlib stream of nothing (8 bytes long).
func tinyZlib() []byte {
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	w.Close()
	return buf.Bytes()
}

// tinyZstd is a valid zstd frame of two bytes (11 bytes long).
func tinyZstd() []byte {
	e, _ := zstd.NewWriter(nil, zstd.WithEncoderCRC(false))
	return e.EncodeAll([]byte("ab"), nil)
}

// TestCompressedClaimRepro is issue #9's repro: 37 bytes on the wire must
// not cost the 48 MB they claim, and must fail as a ProtocolError that
// closes the connection.
func TestCompressedClaimRepro(t *testing.T) {
	for _, tc := range []struct {
		name    string
		id      byte
		payload []byte
	}{{"zlib", CompressorZlib, tinyZlib()}, {"zstd", CompressorZstd, tinyZstd()}} {
		t.Run(tc.name, func(t *testing.T) {
			msg := claimingMax(tc.id, tc.payload)
			if len(msg) > 37 {
				t.Fatalf("repro message is %d bytes, want <= 37", len(msg))
			}
			var err error
			n := allocated(func() {
				_, body, rerr := ReadMessage(bytes.NewReader(msg), 0)
				wantKind(t, rerr, nil)
				_, _, err = ParseCompressed(body, 0)
			})
			t.Logf("%d-byte message claiming %d bytes: allocated %d bytes", len(msg), DefaultMaxMessageSize-HeaderLen, n)
			if n > allocSlack {
				t.Errorf("allocated %d bytes, want <= %d", n, allocSlack)
			}
			wantKind(t, err, ErrDecompress)
			var we *Error
			errors.As(err, &we)
			if !we.Fatal() || we.MongoError().Code != mongoerr.ProtocolError {
				t.Fatalf("error %v: fatal %v, code %v; want fatal ProtocolError", err, we.Fatal(), we.MongoError().Code)
			}
		})
	}
}

// The ratio and structure limits must not refuse the most compressible
// honest message: megabytes of zeros, as every compressor encodes them.
func TestCompressedLimitsAcceptZeros(t *testing.T) {
	zeros := make([]byte, 8<<20)
	for _, id := range allCompressors {
		msg, err := AppendCompressed(nil, 1, 0, OpMsg, id, zeros)
		wantKind(t, err, nil)
		t.Logf("%s: %d bytes -> %d (ratio %d)", CompressorName(id), len(zeros), len(msg), len(zeros)/len(msg))
		op, out, err := ParseCompressed(msg[HeaderLen:], 0)
		wantKind(t, err, nil)
		if op != OpMsg || !bytes.Equal(out, zeros) {
			t.Fatalf("%s: round trip differs", CompressorName(id))
		}
	}
	for _, level := range []int{zlib.BestSpeed, zlib.DefaultCompression, zlib.BestCompression} {
		var buf bytes.Buffer
		w, _ := zlib.NewWriterLevel(&buf, level)
		w.Write(zeros)
		w.Close()
		if buf.Len()*zlibMaxRatio < len(zeros) {
			t.Errorf("zlib level %d reaches ratio %d, above zlibMaxRatio", level, len(zeros)/buf.Len())
		}
		_, _, err := ParseCompressed(compressed(OpMsg, int32(len(zeros)), CompressorZlib, buf.Bytes()), 0)
		wantKind(t, err, nil)
	}
}
