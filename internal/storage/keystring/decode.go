package keystring

import (
	"encoding/binary"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// maxDecodeDepth bounds recursion on corrupt input.
const maxDecodeDepth = 250

var errShort = errors.New("keystring: truncated encoding")

// reader reads bytes XORed with mask (0xFF for descending encodings).
type reader struct {
	b     []byte
	pos   int
	mask  byte
	depth int
}

func (r *reader) byte() (byte, error) {
	if r.pos >= len(r.b) {
		return 0, errShort
	}
	c := r.b[r.pos] ^ r.mask
	r.pos++
	return c, nil
}

// take returns the next n bytes, unmasked, in a fresh slice.
func (r *reader) take(n int) ([]byte, error) {
	if n < 0 || len(r.b)-r.pos < n {
		return nil, errShort
	}
	out := make([]byte, n)
	for i := range out {
		out[i] = r.b[r.pos+i] ^ r.mask
	}
	r.pos += n
	return out, nil
}

// Decode reads one value encoded by AppendValue (with the same desc) from
// the start of b and returns it with the remaining bytes. The value
// compares equal to the one encoded; its type is canonical (see the
// package doc).
func Decode(b []byte, desc bool) (v any, rest []byte, err error) {
	r := &reader{b: b}
	if desc {
		r.mask = 0xFF
	}
	v, err = r.value()
	if err != nil {
		return nil, nil, err
	}
	return v, b[r.pos:], nil
}

func (r *reader) value() (any, error) {
	t, err := r.byte()
	if err != nil {
		return nil, err
	}
	return r.body(t)
}

func (r *reader) body(t byte) (any, error) {
	switch t {
	case bMinKey:
		return bson.MinKey{}, nil
	case bUndefined:
		return bson.Undefined{}, nil
	case bNull:
		return nil, nil
	case bMaxKey:
		return bson.MaxKey{}, nil
	case bNumber:
		return r.readNumber()
	case bString:
		return r.str()
	case bJavaScript:
		s, err := r.str()
		return bson.JavaScript(s), err
	case bObject:
		return r.doc()
	case bArray:
		return r.array()
	}
	return r.fixedBody(t)
}

func (r *reader) fixedBody(t byte) (any, error) {
	switch t {
	case bObjectID:
		b, err := r.take(12)
		if err != nil {
			return nil, err
		}
		return bson.ObjectID(b), nil
	case bBool:
		c, err := r.byte()
		if err != nil || c > 1 {
			return nil, errors.Join(err, errors.New("keystring: bad bool"))
		}
		return c == 1, nil
	case bDate:
		b, err := r.take(8)
		if err != nil {
			return nil, err
		}
		return bson.DateTime(binary.BigEndian.Uint64(b) ^ 1<<63), nil
	case bTimestamp:
		b, err := r.take(8)
		if err != nil {
			return nil, err
		}
		return bson.Timestamp{T: binary.BigEndian.Uint32(b), I: binary.BigEndian.Uint32(b[4:])}, nil
	}
	return r.otherBody(t)
}

func (r *reader) otherBody(t byte) (any, error) {
	switch t {
	case bBinData:
		return r.binary()
	case bRegex:
		p, err := r.str()
		if err != nil {
			return nil, err
		}
		o, err := r.str()
		return bson.Regex{Pattern: p, Options: o}, err
	case bDBPointer:
		return r.dbPointer()
	case bCodeWithScope:
		code, err := r.str()
		if err != nil {
			return nil, err
		}
		scope, err := r.doc()
		return bson.CodeWithScope{Code: bson.JavaScript(code), Scope: scope}, err
	}
	return nil, fmt.Errorf("keystring: unknown type bracket 0x%02x", t)
}

// str reads an escaped, terminated string.
func (r *reader) str() (string, error) {
	var out []byte
	for {
		c, err := r.byte()
		if err != nil {
			return "", err
		}
		if c != 0 {
			out = append(out, c)
			continue
		}
		c, err = r.byte()
		switch {
		case err != nil:
			return "", err
		case c == 0:
			return string(out), nil
		case c == 0xFF:
			out = append(out, 0)
		default:
			return "", fmt.Errorf("keystring: bad string escape 0x00 0x%02x", c)
		}
	}
}

func (r *reader) binary() (any, error) {
	h, err := r.take(5)
	if err != nil {
		return nil, err
	}
	data, err := r.take(int(binary.BigEndian.Uint32(h)))
	if err != nil {
		return nil, err
	}
	return bson.Binary{Subtype: h[4], Data: data}, nil
}

func (r *reader) dbPointer() (any, error) {
	h, err := r.take(4)
	if err != nil {
		return nil, err
	}
	ns, err := r.take(int(binary.BigEndian.Uint32(h)))
	if err != nil {
		return nil, err
	}
	id, err := r.take(12)
	if err != nil {
		return nil, err
	}
	return bson.DBPointer{DB: string(ns), Pointer: bson.ObjectID(id)}, nil
}

func (r *reader) enter() error {
	r.depth++
	if r.depth > maxDecodeDepth {
		return errors.New("keystring: nesting too deep")
	}
	return nil
}

func (r *reader) doc() (bson.D, error) {
	if err := r.enter(); err != nil {
		return nil, err
	}
	defer func() { r.depth-- }()
	d := bson.D{}
	for {
		t, err := r.byte()
		if err != nil || t == end {
			return d, err
		}
		k, err := r.str()
		if err != nil {
			return nil, err
		}
		v, err := r.body(t)
		if err != nil {
			return nil, err
		}
		d = append(d, bson.E{Key: k, Value: v})
	}
}

func (r *reader) array() (bson.A, error) {
	if err := r.enter(); err != nil {
		return nil, err
	}
	defer func() { r.depth-- }()
	a := bson.A{}
	for {
		t, err := r.byte()
		if err != nil || t == end {
			return a, err
		}
		v, err := r.body(t)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
	}
}
