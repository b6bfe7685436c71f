package wire

import (
	"compress/zlib"
	"encoding/binary"
	"sync"

	"github.com/golang/snappy"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// AppendCompressed appends a complete OP_COMPRESSED message wrapping a
// message of originalOpCode whose body (the bytes after its 16-byte header)
// is payload.
func AppendCompressed(dst []byte, requestID, responseTo int32, originalOpCode OpCode, compressorID byte, payload []byte) ([]byte, error) {
	start := len(dst)
	dst = AppendHeader(dst, Header{RequestID: requestID, ResponseTo: responseTo, OpCode: OpCompressed})
	dst = binary.LittleEndian.AppendUint32(dst, uint32(originalOpCode))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(payload)))
	dst = append(dst, compressorID)
	var err error
	switch compressorID {
	case CompressorNoop:
		dst = append(dst, payload...)
	case CompressorSnappy:
		dst = appendSnappy(dst, payload)
	case CompressorZlib:
		dst, err = appendZlib(dst, payload)
	case CompressorZstd:
		dst = zstdEncoder().EncodeAll(payload, dst)
	default:
		return dst[:start], newErr(ErrCompressor, mongoerr.ProtocolError, false,
			"unsupported compressor id %d", compressorID)
	}
	if err != nil {
		return dst[:start], err
	}
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start))
	return dst, nil
}

func appendSnappy(dst, src []byte) []byte {
	n := len(dst)
	dst = grow(dst, snappy.MaxEncodedLen(len(src)))
	enc := snappy.Encode(dst[n:cap(dst)], src)
	return dst[:n+len(enc)]
}

// grow makes room for n more bytes beyond len(dst) without changing len.
func grow(dst []byte, n int) []byte {
	if cap(dst)-len(dst) >= n {
		return dst
	}
	nb := make([]byte, len(dst), len(dst)+n)
	copy(nb, dst)
	return nb
}

// appendWriter is an io.Writer appending to a slice.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

var zlibWriters sync.Pool // of *zlib.Writer

func appendZlib(dst, src []byte) ([]byte, error) {
	w := &appendWriter{b: dst}
	zw, _ := zlibWriters.Get().(*zlib.Writer)
	if zw == nil {
		zw = zlib.NewWriter(w)
	} else {
		zw.Reset(w)
	}
	defer zlibWriters.Put(zw)
	if _, err := zw.Write(src); err != nil {
		return dst, err
	}
	if err := zw.Close(); err != nil {
		return dst, err
	}
	return w.b, nil
}
