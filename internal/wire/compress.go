package wire

import (
	"encoding/binary"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Compressor ids (OP_COMPRESSED compressorId).
const (
	CompressorNoop   byte = 0
	CompressorSnappy byte = 1
	CompressorZlib   byte = 2
	CompressorZstd   byte = 3

	compressedPrefixLen = 4 + 4 + 1
)

// CompressorID maps a name negotiated in hello's "compression" array to its id.
func CompressorID(name string) (byte, bool) {
	switch name {
	case "snappy":
		return CompressorSnappy, true
	case "zlib":
		return CompressorZlib, true
	case "zstd":
		return CompressorZstd, true
	case "noop":
		return CompressorNoop, true
	}
	return 0, false
}

// CompressorName is the inverse of CompressorID ("" for unknown ids).
func CompressorName(id byte) string {
	return [...]string{"noop", "snappy", "zlib", "zstd", ""}[min(int(id), 4)]
}

// ParseCompressed unwraps an OP_COMPRESSED body. It returns the wrapped
// message's op code and its body (what follows the header once decompressed).
// uncompressedSize is bounded by maxSize minus the header, but it is only a
// claim: what decompress allocates is also bounded by the real payload (see
// decompress.go), and the decompressed size must equal the claim exactly.
// All errors are fatal for the connection, as in MongoDB.
//
// A wrapped OP_MSG with ChecksumPresent is not verified here (the header it
// covers is not at hand); the server calls VerifyChecksum with the rebuilt
// header. TODO(#2): decide whether checksummed compressed messages need the
// original or the rebuilt header; drivers do not send them.
func ParseCompressed(body []byte, maxSize int32) (OpCode, []byte, error) {
	if maxSize <= 0 {
		maxSize = DefaultMaxMessageSize
	}
	if len(body) < compressedPrefixLen {
		return 0, nil, newErr(ErrTruncated, mongoerr.ProtocolError, true,
			"OP_COMPRESSED has %d bytes, needs at least %d", len(body), compressedPrefixLen)
	}
	op := OpCode(binary.LittleEndian.Uint32(body))
	size := int32(binary.LittleEndian.Uint32(body[4:]))
	id, payload := body[8], body[compressedPrefixLen:]
	if op == OpCompressed {
		return 0, nil, newErr(ErrMalformed, mongoerr.ProtocolError, true, "OP_COMPRESSED wraps OP_COMPRESSED")
	}
	if size < 0 {
		return 0, nil, newErr(ErrMessageTooSmall, mongoerr.ProtocolError, true, "uncompressedSize %d is negative", size)
	}
	if int64(size) > int64(maxSize)-HeaderLen {
		return 0, nil, newErr(ErrMessageTooLarge, mongoerr.ProtocolError, true,
			"uncompressedSize %d exceeds max message size %d", size, maxSize)
	}
	out, err := decompress(id, payload, int(size))
	if err != nil {
		return 0, nil, err
	}
	return op, out, nil
}

var (
	zstdDecOnce sync.Once
	zstdDec     *zstd.Decoder
	zstdEncOnce sync.Once
	zstdEnc     *zstd.Encoder
)

// zstdDecoder is shared; DecodeAll is safe for concurrent use. Output is
// capped at dst's capacity, which zstdDecode bounds by the frames' structure.
func zstdDecoder() *zstd.Decoder {
	zstdDecOnce.Do(func() {
		var err error
		zstdDec, err = zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(0),
			zstd.WithDecodeAllCapLimit(true),
			zstd.WithDecoderMaxMemory(uint64(DefaultMaxMessageSize)))
		if err != nil {
			panic("wire: zstd decoder options: " + err.Error())
		}
	})
	return zstdDec
}

func zstdEncoder() *zstd.Encoder {
	zstdEncOnce.Do(func() {
		var err error
		zstdEnc, err = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
		if err != nil {
			panic("wire: zstd encoder options: " + err.Error())
		}
	})
	return zstdEnc
}
