package bsonx

import (
	"encoding/binary"
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// decoder validates and decodes raw BSON in one pass. It produces exactly
// the values bson.Unmarshal produces into a bson.D (checked by the
// differential tests) and rejects exactly what the validator in
// validate.go rejects.
//
// Invariants: every read is bounds checked against the enclosing
// document, so no input makes it panic; every []byte it returns is a
// copy, so the input may be reused once Decode returns.
type decoder struct {
	maxDepth int
}

// document decodes the document at the start of b and returns it and its
// length. depth is the depth of this document (the top level is 1).
func (d decoder) document(b []byte, depth int) (bson.D, int, error) {
	n, err := d.frame(b, depth)
	if err != nil {
		return nil, 0, err
	}
	body := b[4 : n-1]
	size := measure(body, true)
	var a arena
	a.reserve(size)
	doc := make(bson.D, 0, size.n)
	for pos := 0; pos < len(body); {
		key, v, used, err := d.element(body[pos:], depth, &a)
		if err != nil {
			return nil, 0, err
		}
		doc = append(doc, bson.E{Key: key, Value: v})
		pos += used
	}
	return doc, n, nil
}

// array decodes the array at the start of b; keys are checked to be
// cstrings and otherwise ignored, as the driver ignores them.
func (d decoder) array(b []byte, depth int) (bson.A, int, error) {
	n, err := d.frame(b, depth)
	if err != nil {
		return nil, 0, err
	}
	body := b[4 : n-1]
	size := measure(body, false)
	var a arena
	a.reserve(size)
	arr := make(bson.A, 0, size.n)
	for pos := 0; pos < len(body); {
		_, v, used, err := d.element(body[pos:], depth, &a)
		if err != nil {
			return nil, 0, err
		}
		arr = append(arr, v)
		pos += used
	}
	return arr, n, nil
}

// frame checks the document at the start of b at this depth (see frame).
func (d decoder) frame(b []byte, depth int) (int, error) {
	return frame(b, depth, d.maxDepth)
}

// element decodes one element at the start of b, which ends just before
// the enclosing document's terminator. Array callers ignore the key.
func (d decoder) element(b []byte, depth int, a *arena) (string, any, int, error) {
	t, pos, err := elementHeader(b)
	if err != nil {
		return "", nil, 0, err
	}
	v, n, err := d.value(t, b[pos:], depth, a)
	if err != nil {
		return "", nil, 0, err
	}
	return a.key(b[1 : pos-1]), v, pos + n, nil
}

// value decodes a value of type t at the start of b and returns its size.
func (d decoder) value(t byte, b []byte, depth int, a *arena) (any, int, error) {
	switch t {
	case TypeDouble:
		if len(b) < 8 {
			return nil, 0, truncated(b, 8)
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), 8, nil
	case TypeString, TypeJavaScript, TypeSymbol:
		return decodeString(t, b, a)
	case TypeObject:
		return d.document(b, depth+1)
	case TypeArray:
		return d.array(b, depth+1)
	case TypeBinData:
		return binaryValue(b, a)
	case TypeCodeWithScope:
		return d.codeWithScope(b, depth)
	}
	return scalarValue(t, b)
}

// codeWithScope decodes int32 total, string code, scope document; the
// total must account for exactly those parts. The scope is a bson.D.
func (d decoder) codeWithScope(b []byte, depth int) (any, int, error) {
	total, err := int32At(b)
	if err != nil {
		return nil, 0, err
	}
	if total < 14 || total > len(b) {
		return nil, 0, invalid("code with scope length %d out of range", total)
	}
	body := b[4:total]
	s, err := bsonString(body)
	if err != nil {
		return nil, 0, err
	}
	scope, n, err := d.document(body[s:], depth+1)
	if err != nil {
		return nil, 0, err
	}
	if 4+s+n != total {
		return nil, 0, invalid("code with scope length %d does not match its parts", total)
	}
	code := bson.JavaScript(body[4 : s-1])
	return bson.CodeWithScope{Code: code, Scope: scope}, total, nil
}

func truncated(b []byte, n int) error {
	return invalid("value truncated: need %d bytes, have %d", n, len(b))
}
