package bsonx

import (
	"bytes"
	"encoding/binary"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Validate checks raw exactly as DecodeMaxDepth does, with the same
// errors, without building anything: for code that keeps or forwards raw
// bytes and needs only to know they are well formed.
func Validate(raw []byte, maxDepth int) error {
	n, err := validator{maxDepth: maxDepth}.document(raw, 1)
	if err != nil {
		return err
	}
	if n != len(raw) {
		return invalid("%d trailing bytes after the document", len(raw)-n)
	}
	return nil
}

// validator walks raw BSON without decoding it. Every read is bounds
// checked, so no input can make it (or the decoder run after it) panic.
type validator struct {
	maxDepth int
}

// document checks the document at the start of b and returns its length.
// depth is the depth of this document (the top level is 1).
func (v validator) document(b []byte, depth int) (int, error) {
	n, err := frame(b, depth, v.maxDepth)
	if err != nil {
		return 0, err
	}
	for pos := 4; pos < n-1; {
		used, err := v.element(b[pos:n-1], depth)
		if err != nil {
			return 0, err
		}
		pos += used
	}
	return n, nil
}

// element checks one element (type, key, value) at the start of b, which
// ends just before the enclosing document's terminator.
func (v validator) element(b []byte, depth int) (int, error) {
	t, pos, err := elementHeader(b)
	if err != nil {
		return 0, err
	}
	n, err := v.value(t, b[pos:], depth)
	if err != nil {
		return 0, err
	}
	return pos + n, nil
}

// value checks a value of type t at the start of b and returns its size.
func (v validator) value(t byte, b []byte, depth int) (int, error) {
	if n, ok := scalarSize(t); ok {
		return need(b, n)
	}
	switch t {
	case TypeString, TypeJavaScript, TypeSymbol:
		return bsonString(b)
	case TypeObject, TypeArray:
		return v.document(b, depth+1)
	case TypeBinData:
		return binData(b)
	case TypeBool:
		if len(b) < 1 || b[0] > 1 {
			return 0, invalid("boolean is not 0 or 1")
		}
		return 1, nil
	case TypeRegex:
		return regex(b)
	case TypeDBPointer:
		n, err := bsonString(b)
		if err != nil {
			return 0, err
		}
		m, err := need(b[n:], 12)
		return n + m, err
	case TypeCodeWithScope:
		return v.codeWithScope(b, depth)
	}
	return 0, invalid("unknown element type 0x%02x", t)
}

func need(b []byte, n int) (int, error) {
	if len(b) < n {
		return 0, invalid("value truncated: need %d bytes, have %d", n, len(b))
	}
	return n, nil
}

func regex(b []byte) (int, error) {
	p, err := cstring(b)
	if err != nil {
		return 0, err
	}
	o, err := cstring(b[p:])
	if err != nil {
		return 0, err
	}
	return p + o, nil
}

// codeWithScope checks int32 total, string code, scope document; the total
// must account for exactly those parts.
func (v validator) codeWithScope(b []byte, depth int) (int, error) {
	total, err := int32At(b)
	if err != nil {
		return 0, err
	}
	if total < 14 || total > len(b) {
		return 0, invalid("code with scope length %d out of range", total)
	}
	body := b[4:total]
	s, err := bsonString(body)
	if err != nil {
		return 0, err
	}
	d, err := v.document(body[s:], depth+1)
	if err != nil {
		return 0, err
	}
	if 4+s+d != total {
		return 0, invalid("code with scope length %d does not match its parts", total)
	}
	return total, nil
}

// The checks below are shared with the decoder: each returns the size of a
// well-formed item at the start of b or an InvalidBSON error, and never
// reads past b.

// frame checks the depth, the length prefix and the terminator of the
// document at the start of b and returns its length.
func frame(b []byte, depth, maxDepth int) (int, error) {
	if depth > maxDepth {
		return 0, mongoerr.New(mongoerr.Overflow,
			"BSONObj exceeded maximum nested object depth: %d", maxDepth)
	}
	if len(b) < 5 {
		return 0, invalid("document of %d bytes is shorter than 5", len(b))
	}
	n := int(int32(binary.LittleEndian.Uint32(b)))
	if n < 5 || n > len(b) {
		return 0, invalid("document length %d out of range (have %d bytes)", n, len(b))
	}
	if b[n-1] != 0 {
		return 0, invalid("document not terminated by 0x00")
	}
	return n, nil
}

// elementHeader checks the type byte and the key of the element at the
// start of b (non-empty) and returns the type and where the value starts.
func elementHeader(b []byte) (byte, int, error) {
	t := b[0]
	if t == 0 {
		return 0, 0, invalid("unexpected end-of-object byte inside a document")
	}
	k, err := cstring(b[1:])
	if err != nil {
		return 0, 0, err
	}
	return t, 1 + k, nil
}

func invalid(format string, args ...any) error {
	return mongoerr.New(mongoerr.InvalidBSON, "invalid BSON: "+format, args...)
}

// cstring returns the length of the NUL-terminated string at b, NUL included.
func cstring(b []byte) (int, error) {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return i + 1, nil
	}
	return 0, invalid("unterminated cstring")
}

func int32At(b []byte) (int, error) {
	if len(b) < 4 {
		return 0, invalid("length prefix truncated")
	}
	return int(int32(binary.LittleEndian.Uint32(b))), nil
}

// bsonString checks an int32 length (including the NUL), bytes and NUL.
func bsonString(b []byte) (int, error) {
	l, err := int32At(b)
	if err != nil {
		return 0, err
	}
	if l < 1 || l > len(b)-4 {
		return 0, invalid("string length %d out of range", l)
	}
	if b[4+l-1] != 0 {
		return 0, invalid("string not terminated by 0x00")
	}
	return 4 + l, nil
}

func binData(b []byte) (int, error) {
	l, err := int32At(b)
	if err != nil {
		return 0, err
	}
	if l < 0 || l > len(b)-5 {
		return 0, invalid("binData length %d out of range", l)
	}
	if b[4] == 0x02 { // old binary subtype: an inner length of l-4
		inner, err := int32At(b[5 : 5+l])
		if err != nil || inner != l-4 {
			return 0, invalid("binData subtype 2 inner length mismatch")
		}
	}
	return 5 + l, nil
}
