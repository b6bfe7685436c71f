package bsonx

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The encoder writes the bytes bson.Marshal writes for a bson.D, without
// reflection (checked byte for byte by the differential tests). Values it
// does not know are handed to bson.MarshalValue one at a time, so nothing
// the driver encodes stops working; bson.M and map[string]any are refused
// because their key order is random.

var errKeyNUL = errors.New("BSON element key cannot contain null bytes")

// AppendDocument appends the BSON encoding of doc to dst. A nil doc encodes
// as an empty document. On error dst is returned truncated to its original
// length.
func AppendDocument(dst []byte, doc bson.D) ([]byte, error) {
	start := len(dst)
	out, err := appendDocument(dst, doc)
	if err != nil {
		return dst[:start], fmt.Errorf("bsonx: encode document: %w", err)
	}
	return out, nil
}

// encodePool holds scratch buffers for Encode, which copies the result out
// at its exact size: one allocation per call however large the document.
var encodePool = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledBuffer bounds the buffers kept for reuse, so one huge document
// does not pin its buffer.
const maxPooledBuffer = 64 << 10

func encodePooled(doc bson.D) ([]byte, error) {
	bp := encodePool.Get().(*[]byte)
	buf, err := AppendDocument((*bp)[:0], doc)
	var out []byte
	if err == nil {
		out = make([]byte, len(buf))
		copy(out, buf)
	}
	if cap(buf) <= maxPooledBuffer {
		*bp = buf
		encodePool.Put(bp)
	}
	return out, err
}

func appendDocument(dst []byte, doc bson.D) ([]byte, error) {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	var err error
	for _, e := range doc {
		if strings.IndexByte(e.Key, 0) >= 0 {
			return nil, errKeyNUL
		}
		if dst, err = appendElement(dst, e.Key, e.Value); err != nil {
			return nil, fmt.Errorf("field %q: %w", e.Key, err)
		}
	}
	return closeDocument(dst, start)
}

func appendArray(dst []byte, arr []any) ([]byte, error) {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	for i, v := range arr {
		at := len(dst)
		dst = append(dst, 0)
		dst = strconv.AppendInt(dst, int64(i), 10)
		dst = append(dst, 0)
		t, out, err := appendValue(dst, v)
		if err != nil {
			return nil, fmt.Errorf("index %d: %w", i, err)
		}
		dst = out
		dst[at] = t
	}
	return closeDocument(dst, start)
}

// closeDocument appends the terminator and fills in the length prefix of
// the document that starts at start.
func closeDocument(dst []byte, start int) ([]byte, error) {
	dst = append(dst, 0)
	n := len(dst) - start
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("document of %d bytes is too large", n)
	}
	binary.LittleEndian.PutUint32(dst[start:], uint32(n))
	return dst, nil
}

// appendElement appends a type byte, the key and the value; the type byte
// is written once appendValue has decided it.
func appendElement(dst []byte, key string, v any) ([]byte, error) {
	at := len(dst)
	dst = append(dst, 0)
	dst = append(dst, key...)
	dst = append(dst, 0)
	t, dst, err := appendValue(dst, v)
	if err != nil {
		return nil, err
	}
	dst[at] = t
	return dst, nil
}
