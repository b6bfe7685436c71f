package wire

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/golang/snappy"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// A claimed uncompressedSize is never trusted for an allocation on its own:
// each decoder also bounds its output buffer by what the real payload can
// produce, so a small message costs little memory whatever it claims.
//
// The ratio limits below are structural (the most output one input byte can
// yield in that format), so no valid stream is refused by them.
const (
	// snappyMaxRatio: a 3-byte copy element emits at most 64 bytes.
	snappyMaxRatio = 22
	// zlibMaxRatio: deflate's limit, a 258-byte match for about 2 bits.
	zlibMaxRatio = 1032
	// ratioSlack covers the fixed headers of a tiny stream.
	ratioSlack = 64
	// firstOut is the smallest first capacity of a streamed output buffer;
	// it then doubles as real output arrives.
	firstOut = 4 << 10
)

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
		out, err = zstdDecode(src, size)
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

// checkRatio refuses a claim no stream of len(src) bytes can honour.
func checkRatio(src []byte, size, ratio int) error {
	if size > ratio*len(src)+ratioSlack {
		return fmt.Errorf("uncompressedSize %d is more than %d bytes of payload can hold (ratio %d)", size, len(src), ratio)
	}
	return nil
}

// snappyDecode allocates the decoded length snappy's header states only once
// it matches the claim and the ratio limit.
func snappyDecode(src []byte, size int) ([]byte, error) {
	n, err := snappy.DecodedLen(src)
	if err != nil {
		return nil, err
	}
	if n != size {
		return nil, errors.New("snappy length does not match uncompressedSize")
	}
	if err := checkRatio(src, n, snappyMaxRatio); err != nil {
		return nil, err
	}
	return snappy.Decode(make([]byte, n), src)
}

var zlibReaders sync.Pool // of io.ReadCloser that implement zlib.Resetter

// zlibDecode inflates src into a buffer that grows as output arrives, up to
// size bytes, failing if the stream holds more or less: a bomb stops at
// size+1 bytes of output and at most about twice that of allocation.
func zlibDecode(src []byte, size int) ([]byte, error) {
	if err := checkRatio(src, size, zlibMaxRatio); err != nil {
		return nil, err
	}
	zr, err := getZlibReader(src)
	if err != nil {
		return nil, err
	}
	defer zlibReaders.Put(zr)
	return readExactly(zr, size, max(firstOut, 4*len(src)))
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

// readExactly reads r to its end, which must come after exactly size bytes.
// The buffer starts at min(size, first) bytes and doubles only when real
// output has filled it, never past size, so its capacity stays below twice
// the output read (or first).
func readExactly(r io.Reader, size, first int) ([]byte, error) {
	buf := make([]byte, 0, min(size, first))
	for {
		if len(buf) == cap(buf) {
			if len(buf) == size {
				return buf, expectEOF(r)
			}
			nb := make([]byte, len(buf), min(size, 2*cap(buf)))
			copy(nb, buf)
			buf = nb
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil // decompress compares len(buf) with size
		}
		if err != nil {
			return nil, err
		}
	}
}

// expectEOF fails unless r has nothing left (its checksum verified).
func expectEOF(r io.Reader) error {
	var extra [1]byte
	n, err := io.ReadFull(r, extra[:])
	switch {
	case n > 0:
		return errors.New("stream is longer than uncompressedSize")
	case errors.Is(err, io.EOF):
		return nil
	default:
		return err
	}
}

// zstdDecode decodes into a buffer of size bytes once the frames' structure
// (read without decoding, zstdBound) shows they can produce that much: a
// claim costs at most 128 KiB per 3-byte block header actually sent.
func zstdDecode(src []byte, size int) ([]byte, error) {
	bound, err := zstdBound(src)
	if err != nil {
		return nil, err
	}
	if uint64(size) > bound {
		return nil, fmt.Errorf("frames can hold at most %d bytes, uncompressedSize says %d", bound, size)
	}
	return zstdDecoder().DecodeAll(src, make([]byte, 0, size))
}
