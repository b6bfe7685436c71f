package cmdspec

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Field types whose parsing MongoDB does by hand rather than by IDL type,
// with MongoDB's error for each.

// CollName is a command's collection name (its first element).
type CollName string

// DecodeField implements FieldDecoder.
func (c *CollName) DecodeField(_ string, v any) error {
	s, ok := v.(string)
	if !ok {
		return mongoerr.New(mongoerr.InvalidNamespace, "collection name has invalid type %s", bsonx.TypeAlias(v))
	}
	*c = CollName(s)
	return nil
}

// Long is a field that must be sent as a 64-bit integer (a cursor id).
type Long int64

// DecodeField implements FieldDecoder.
func (l *Long) DecodeField(path string, v any) error {
	n, ok := v.(int64)
	if !ok {
		return TypeError(path, v, "long")
	}
	*l = Long(n)
	return nil
}

// EncodeField implements FieldEncoder.
func (l Long) EncodeField() (any, bool) { return int64(l), true }

// Hint is an index name or key pattern; an empty pattern is no hint.
type Hint struct {
	Value any // string or bson.D; nil when absent
}

// DecodeField implements FieldDecoder.
func (h *Hint) DecodeField(_ string, v any) error {
	switch t := v.(type) {
	case string:
		h.Value = t
	case bson.D:
		if len(t) > 0 {
			h.Value = t
		}
	default:
		return mongoerr.New(mongoerr.FailedToParse, "hint must be a string or an object")
	}
	return nil
}

// EncodeField implements FieldEncoder.
func (h Hint) EncodeField() (any, bool) { return h.Value, h.Value != nil }

// Collation is a collation document, kept as sent.
type Collation struct {
	Doc bson.D
	Set bool // the field was present
}

// DecodeField implements FieldDecoder.
func (c *Collation) DecodeField(_ string, v any) error {
	d, ok := v.(bson.D)
	if !ok {
		return mongoerr.New(mongoerr.TypeMismatch, "collation must be an object")
	}
	c.Doc, c.Set = d, true
	return nil
}

// EncodeField implements FieldEncoder.
func (c Collation) EncodeField() (any, bool) {
	if c.Doc == nil {
		return bson.D{}, c.Set
	}
	return c.Doc, c.Set
}

// Modification is an update: an update document or a pipeline.
type Modification struct {
	Value any // bson.D or bson.A; nil when absent
}

// DecodeField implements FieldDecoder.
func (m *Modification) DecodeField(_ string, v any) error {
	switch v.(type) {
	case bson.D, bson.A:
		m.Value = v
		return nil
	}
	return mongoerr.New(mongoerr.FailedToParse, "Update argument must be either an object or an array")
}

// EncodeField implements FieldEncoder.
func (m Modification) EncodeField() (any, bool) { return m.Value, m.Value != nil }

// Filters is arrayFilters: an array of objects, errors named by the field
// alone (MongoDB does not name the element).
type Filters []bson.D

// DecodeField implements FieldDecoder.
func (f *Filters) DecodeField(path string, v any) error {
	a, ok := v.(bson.A)
	if !ok {
		return TypeError(path, v, "array")
	}
	out := make(Filters, len(a))
	for i, x := range a {
		d, isDoc := x.(bson.D)
		if !isDoc {
			return TypeError(path, x, "object")
		}
		out[i] = d
	}
	*f = out
	return nil
}

// EncodeField implements FieldEncoder.
func (f Filters) EncodeField() (any, bool) {
	if f == nil {
		return nil, false
	}
	a := make(bson.A, len(f))
	for i, d := range f {
		a[i] = d
	}
	return a, true
}
