package wire

import (
	"testing"

	"github.com/golang/snappy"
)

// allocPerPayloadByte is the most a decoder may allocate per byte of
// compressed payload: its structural ratio times its buffer's growth
// overhead. noop aliases its input; snappy allocates the decoded length
// once; zlib's doubling buffer holds under twice its output and sums to
// under twice its last capacity; zstd's buffer is at most 128 KiB per block
// header (3 bytes) and DecodeAll's append may regrow it once (x1.25+).
var allocPerPayloadByte = map[byte]uint64{
	CompressorNoop:   0,
	CompressorSnappy: snappyMaxRatio,
	CompressorZlib:   4 * zlibMaxRatio,
	CompressorZstd:   zstdMaxBlock,
}

// FuzzCompressedAlloc asserts that decoding an OP_COMPRESSED body allocates
// at most allocPerPayloadByte times its payload plus allocSlack, whatever
// uncompressedSize claims (up to the default 48 MB maximum). Seeds include
// issue #9's messages, so plain `go test` checks them.
func FuzzCompressedAlloc(f *testing.F) {
	hello := helloMsg(f)[HeaderLen:]
	claimMax := DefaultMaxMessageSize - HeaderLen
	zeros := make([]byte, 1<<20)
	for _, id := range allCompressors {
		c, _ := AppendCompressed(nil, 1, 0, OpMsg, id, hello)
		f.Add(id, int32(len(hello)), c[HeaderLen+compressedPrefixLen:])
	}
	f.Add(CompressorZlib, claimMax, tinyZlib())
	f.Add(CompressorZstd, claimMax, tinyZstd())
	f.Add(CompressorZstd, claimMax, zstdBytes(hello, false))
	f.Add(CompressorZstd, claimMax, zstdBytes(zeros, true))
	f.Add(CompressorZlib, claimMax, zlibBytes(f, zeros))
	f.Add(CompressorSnappy, claimMax, snappy.Encode(nil, zeros))
	f.Add(CompressorZstd, int32(len(zeros)), zstdBytes(zeros, false))
	f.Fuzz(func(t *testing.T, id byte, claim int32, payload []byte) {
		body := compressed(OpMsg, claim, id, payload)
		limit := allocPerPayloadByte[id]*uint64(len(payload)) + allocSlack
		n := allocated(func() { ParseCompressed(body, 0) })
		if n > limit {
			t.Fatalf("%s: %d-byte payload claiming %d allocated %d bytes, limit %d",
				CompressorName(id), len(payload), claim, n, limit)
		}
	})
}
