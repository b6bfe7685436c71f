package keystring

import (
	"encoding/binary"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// Bracket bytes, ascending in bsonx.CanonicalType order. 0x00 is reserved
// for the end of documents and arrays, so it sorts below every value.
const (
	bMinKey        byte = 0x0A
	bUndefined     byte = 0x0F
	bNull          byte = 0x14
	bNumber        byte = 0x1E
	bString        byte = 0x28
	bObject        byte = 0x32
	bArray         byte = 0x3C
	bBinData       byte = 0x46
	bObjectID      byte = 0x50
	bBool          byte = 0x5A
	bDate          byte = 0x64
	bTimestamp     byte = 0x6E
	bRegex         byte = 0x78
	bDBPointer     byte = 0x82
	bJavaScript    byte = 0x8C
	bCodeWithScope byte = 0x96
	bMaxKey        byte = 0xF0
	end            byte = 0x00
)

// bracketByCanon is indexed by bsonx.CanonicalType + 1; a zero entry means
// no bracket.
var bracketByCanon = [bsonx.CanonMaxKey + 2]byte{
	bsonx.CanonMinKey + 1: bMinKey, bsonx.CanonUndefined + 1: bUndefined,
	bsonx.CanonNull + 1: bNull, bsonx.CanonNumber + 1: bNumber,
	bsonx.CanonString + 1: bString, bsonx.CanonObject + 1: bObject,
	bsonx.CanonArray + 1: bArray, bsonx.CanonBinData + 1: bBinData,
	bsonx.CanonObjectID + 1: bObjectID, bsonx.CanonBool + 1: bBool,
	bsonx.CanonDate + 1: bDate, bsonx.CanonTimestamp + 1: bTimestamp,
	bsonx.CanonRegex + 1: bRegex, bsonx.CanonDBPointer + 1: bDBPointer,
	bsonx.CanonJavaScript + 1:    bJavaScript,
	bsonx.CanonCodeWithScope + 1: bCodeWithScope, bsonx.CanonMaxKey + 1: bMaxKey,
}

// bracket returns v's bracket byte; a non-BSON Go value encodes as MaxKey.
func bracket(v any) byte {
	c := bsonx.CanonicalType(v) + 1
	if c < 0 || c >= len(bracketByCanon) || bracketByCanon[c] == 0 {
		return bMaxKey
	}
	return bracketByCanon[c]
}

// AppendValue appends the encoding of v to dst. With desc the appended
// bytes are inverted so that they sort in descending order of v.
func AppendValue(dst []byte, v any, desc bool) []byte {
	start := len(dst)
	dst = append(dst, bracket(v))
	dst = appendBody(dst, v)
	if desc {
		invert(dst[start:])
	}
	return dst
}

// Key returns the ascending encoding of v.
func Key(v any) []byte { return AppendValue(nil, v, false) }

// AppendMinKey appends an encoding below every other value's (above every
// other one's when desc).
func AppendMinKey(dst []byte, desc bool) []byte { return AppendValue(dst, bson.MinKey{}, desc) }

// AppendMaxKey appends an encoding above every other value's (below every
// other one's when desc).
func AppendMaxKey(dst []byte, desc bool) []byte { return AppendValue(dst, bson.MaxKey{}, desc) }

// BracketLow returns the smallest ascending encoding of v's type bracket:
// every value of that bracket encodes to bytes >= BracketLow(v).
func BracketLow(v any) []byte { return []byte{bracket(v)} }

// BracketHigh returns the exclusive upper bound of v's type bracket in
// ascending form: every value of that bracket encodes to bytes below it.
func BracketHigh(v any) []byte { return []byte{bracket(v) + 1} }

func invert(b []byte) {
	for i := range b {
		b[i] = ^b[i]
	}
}

// appendBody appends what follows v's bracket byte.
func appendBody(dst []byte, v any) []byte {
	switch x := v.(type) {
	case string:
		return appendString(dst, x)
	case bson.Symbol:
		return appendString(dst, string(x))
	case bson.JavaScript:
		return appendString(dst, string(x))
	case bson.D:
		return appendDoc(dst, x)
	case bson.A:
		return appendArray(dst, x)
	case []any:
		return appendArray(dst, x)
	case bson.ObjectID:
		return append(dst, x[:]...)
	case bool:
		return append(dst, boolByte(x))
	case bson.DateTime:
		return binary.BigEndian.AppendUint64(dst, uint64(x)^1<<63)
	case bson.Timestamp:
		return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(dst, x.T), x.I)
	}
	return appendOtherBody(dst, v)
}

func appendOtherBody(dst []byte, v any) []byte {
	switch x := v.(type) {
	case bson.Binary:
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(x.Data)))
		return append(append(dst, x.Subtype), x.Data...)
	case bson.Regex:
		return appendString(appendString(dst, x.Pattern), x.Options)
	case bson.DBPointer:
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(x.DB)))
		return append(append(dst, x.DB...), x.Pointer[:]...)
	case bson.CodeWithScope:
		scope, _ := x.Scope.(bson.D)
		return appendDoc(appendString(dst, string(x.Code)), scope)
	}
	if n, ok := bsonx.SplitNumber(v); ok {
		return appendNumber(dst, n)
	}
	return dst // MinKey, MaxKey, null, undefined: the bracket says it all
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// appendString escapes 0x00 as 0x00 0xFF and terminates with 0x00 0x00.
func appendString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		dst = append(dst, s[i])
		if s[i] == 0 {
			dst = append(dst, 0xFF)
		}
	}
	return append(dst, 0, 0)
}

func appendDoc(dst []byte, d bson.D) []byte {
	for _, e := range d {
		dst = append(dst, bracket(e.Value))
		dst = appendString(dst, e.Key)
		dst = appendBody(dst, e.Value)
	}
	return append(dst, end)
}

func appendArray(dst []byte, a []any) []byte {
	for _, v := range a {
		dst = append(dst, bracket(v))
		dst = appendBody(dst, v)
	}
	return append(dst, end)
}
