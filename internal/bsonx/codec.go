package bsonx

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Nesting limits, as MongoDB sets them (BSONDepth): any BSON it accepts may
// nest MaxWireDepth levels; a document it stores may nest MaxUserDepth
// levels, leaving room for the levels an oplog entry or reply adds.
const (
	MaxWireDepth = 200
	MaxUserDepth = 100
)

// Decode validates raw as exactly one BSON document (no trailing bytes) and
// decodes it. Malformed input yields InvalidBSON (22); nesting deeper than
// MaxWireDepth yields Overflow (15). Storing a document must additionally
// pass CheckUserDepth.
func Decode(raw []byte) (bson.D, error) {
	return DecodeMaxDepth(raw, MaxWireDepth)
}

// DecodeMaxDepth is Decode with a caller-chosen nesting limit (the top-level
// document is depth 1).
func DecodeMaxDepth(raw []byte, maxDepth int) (doc bson.D, err error) {
	defer func() {
		if r := recover(); r != nil { // unreachable: every read is bounds checked
			doc, err = nil, invalid("decoder panic: %v", r)
		}
	}()
	doc, n, err := decoder{maxDepth: maxDepth}.document(raw, 1)
	if err != nil {
		return nil, err
	}
	if n != len(raw) {
		return nil, invalid("%d trailing bytes after the document", len(raw)-n)
	}
	return doc, nil
}

// Encode marshals doc to BSON bytes, exactly as bson.Marshal does (see
// AppendDocument). The driver renumbers array keys and sorts regex
// options, so Encode(Decode(raw)) may differ from raw for such input; it is
// byte-identical otherwise.
func Encode(doc bson.D) ([]byte, error) {
	return encodePooled(doc)
}

// Depth returns how deeply doc nests: a document of scalars is 1, and each
// non-empty embedded document or array adds a level (MongoDB does not count
// empty ones).
func Depth(doc bson.D) int {
	d := 0
	for _, e := range doc {
		d = max(d, valueDepth(e.Value))
	}
	return 1 + d
}

func valueDepth(v any) int {
	switch x := v.(type) {
	case bson.D:
		if len(x) > 0 {
			return Depth(x)
		}
	case bson.A:
		return arrayDepth(x)
	case []any:
		return arrayDepth(x)
	}
	return 0
}

func arrayDepth(a []any) int {
	if len(a) == 0 {
		return 0
	}
	d := 0
	for _, v := range a {
		d = max(d, valueDepth(v))
	}
	return 1 + d
}

// CheckUserDepth returns Overflow (15) if doc nests deeper than
// MaxUserDepth, as MongoDB does when storing a document.
func CheckUserDepth(doc bson.D) error {
	if Depth(doc) > MaxUserDepth {
		return mongoerr.New(mongoerr.Overflow,
			"Document exceeds maximum nesting depth of %d", MaxUserDepth)
	}
	return nil
}
