package wire

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"io"
	"sync"

	"github.com/golang/snappy"
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
// uncompressedSize is bounded by maxSize minus the header before anything is
// allocated, and the decompressed size must equal it exactly. All errors are
// fatal for the connection, as in MongoDB.
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

func decompress(id byte, src []byte, size int) ([]byte, error) {
	var out []byte
	var err error
	switch id {
	case CompressorNoop:
		out = src
	case CompressorSnappy:
		out, err = snappyDecode(src, size)
	case CompressorZlib:
		out, err = zlibDecode(src, size)
	case CompressorZstd:
		out, err = zstdDecoder().DecodeAll(src, make([]byte, 0, size))
	default:
		return nil, newErr(ErrCompressor, mongoerr.ProtocolError, true, "unsupported compressor id %d", id)
	}
	if err != nil {
		return nil, newErr(ErrDecompress, mongoerr.ProtocolError, true, "%s: %v", CompressorName(id), err)
	}
	if len(out) != size {
		return nil, newErr(ErrDecompress, mongoerr.ProtocolError, true,
			"%s: decompressed %d bytes, uncompressedSize says %d", CompressorName(id), len(out), size)
	}
	return out, nil
}

func snappyDecode(src []byte, size int) ([]byte, error) {
	n, err := snappy.DecodedLen(src)
	if err != nil {
		return nil, err
	}
	if n != size {
		return nil, errors.New("snappy length does not match uncompressedSize")
	}
	return snappy.Decode(make([]byte, n), src)
}

var zlibReaders sync.Pool // of io.ReadCloser that implement zlib.Resetter

// zlibDecode inflates src into exactly size bytes, failing if the stream
// holds more or less: a bomb stops at size+1 bytes.
func zlibDecode(src []byte, size int) ([]byte, error) {
	zr, err := getZlibReader(src)
	if err != nil {
		return nil, err
	}
	defer zlibReaders.Put(zr)
	out := make([]byte, size)
	if _, err := io.ReadFull(zr, out); err != nil {
		return nil, err
	}
	var extra [1]byte
	if n, err := zr.Read(extra[:]); n > 0 || (err != nil && err != io.EOF) {
		if err == nil || err == io.EOF {
			err = errors.New("stream is longer than uncompressedSize")
		}
		return nil, err
	}
	return out, nil
}

func getZlibReader(src []byte) (io.ReadCloser, error) {
	if zr, ok := zlibReaders.Get().(io.ReadCloser); ok {
		if err := zr.(zlib.Resetter).Reset(bytes.NewReader(src), nil); err != nil {
			return nil, err
		}
		return zr, nil
	}
	return zlib.NewReader(bytes.NewReader(src))
}

var (
	zstdDecOnce sync.Once
	zstdDec     *zstd.Decoder
	zstdEncOnce sync.Once
	zstdEnc     *zstd.Encoder
)

// zstdDecoder is shared; DecodeAll is safe for concurrent use. Output is
// capped at dst's capacity (the validated uncompressedSize).
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
