package bsonx

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// appendValue appends the encoding of v and returns its element type.
func appendValue(dst []byte, v any) (byte, []byte, error) {
	switch x := v.(type) {
	case nil, bson.Null:
		return TypeNull, dst, nil
	case string:
		return TypeString, appendString(dst, x), nil
	case int32:
		return TypeInt32, binary.LittleEndian.AppendUint32(dst, uint32(x)), nil
	case int64:
		return TypeInt64, binary.LittleEndian.AppendUint64(dst, uint64(x)), nil
	case int:
		if x >= math.MinInt32 && x <= math.MaxInt32 {
			return TypeInt32, binary.LittleEndian.AppendUint32(dst, uint32(x)), nil
		}
		return TypeInt64, binary.LittleEndian.AppendUint64(dst, uint64(x)), nil
	case float64:
		return TypeDouble, binary.LittleEndian.AppendUint64(dst, math.Float64bits(x)), nil
	case float32:
		return TypeDouble, binary.LittleEndian.AppendUint64(dst, math.Float64bits(float64(x))), nil
	case bool:
		return TypeBool, append(dst, boolByte(x)), nil
	case bson.D:
		if x == nil {
			return TypeNull, dst, nil
		}
		out, err := appendDocument(dst, x)
		return TypeObject, out, err
	case bson.A:
		if x == nil {
			return TypeNull, dst, nil
		}
		out, err := appendArray(dst, x)
		return TypeArray, out, err
	case []any:
		if x == nil {
			return TypeNull, dst, nil
		}
		out, err := appendArray(dst, x)
		return TypeArray, out, err
	case bson.Binary:
		return TypeBinData, appendBinary(dst, x.Subtype, x.Data), nil
	case []byte:
		if x == nil {
			return TypeNull, dst, nil
		}
		return TypeBinData, appendBinary(dst, 0, x), nil
	case bson.ObjectID:
		return TypeObjectID, append(dst, x[:]...), nil
	case bson.DateTime:
		return TypeDate, binary.LittleEndian.AppendUint64(dst, uint64(x)), nil
	case time.Time:
		return TypeDate, binary.LittleEndian.AppendUint64(dst, uint64(bson.NewDateTimeFromTime(x))), nil
	}
	return appendRareValue(dst, v)
}

// appendRareValue handles the types appendValue does not, falling back to
// the driver for any it does not know.
func appendRareValue(dst []byte, v any) (byte, []byte, error) {
	switch x := v.(type) {
	case bson.Timestamp:
		dst = binary.LittleEndian.AppendUint32(dst, x.I)
		return TypeTimestamp, binary.LittleEndian.AppendUint32(dst, x.T), nil
	case bson.Decimal128:
		hi, lo := x.GetBytes()
		dst = binary.LittleEndian.AppendUint64(dst, lo)
		return TypeDecimal, binary.LittleEndian.AppendUint64(dst, hi), nil
	case bson.Regex:
		return appendRegex(dst, x)
	case bson.Undefined:
		return TypeUndefined, dst, nil
	case bson.MinKey:
		return TypeMinKey, dst, nil
	case bson.MaxKey:
		return TypeMaxKey, dst, nil
	case bson.JavaScript:
		return TypeJavaScript, appendString(dst, string(x)), nil
	case bson.Symbol:
		return TypeSymbol, appendString(dst, string(x)), nil
	case bson.DBPointer:
		return TypeDBPointer, append(appendString(dst, x.DB), x.Pointer[:]...), nil
	case bson.CodeWithScope:
		return appendCodeWithScope(dst, x)
	case int8:
		return TypeInt32, binary.LittleEndian.AppendUint32(dst, uint32(x)), nil
	case int16:
		return TypeInt32, binary.LittleEndian.AppendUint32(dst, uint32(x)), nil
	case bson.Raw:
		// TODO(#2): elements are not checked (the driver walks them); callers
		// pass bytes they read from storage or validated on the wire.
		if isWholeDocument(x) {
			return TypeObject, append(dst, x...), nil
		}
	case bson.RawValue:
		if x.Type.IsValid() {
			return byte(x.Type), append(dst, x.Value...), nil
		}
	case bson.M, map[string]any:
		return 0, nil, errors.New("bson.M is not supported: its key order is random; use bson.D")
	}
	return appendByDriver(dst, v)
}

// appendByDriver encodes v with the driver's reflection-based encoder.
func appendByDriver(dst []byte, v any) (byte, []byte, error) {
	t, data, err := bson.MarshalValue(v)
	if err != nil {
		return 0, nil, err
	}
	return byte(t), append(dst, data...), nil
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// appendString appends an int32 length (counting the NUL), s and a NUL.
func appendString(dst []byte, s string) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(s)+1))
	dst = append(dst, s...)
	return append(dst, 0)
}

// appendBinary writes the old subtype 2 with its inner length, as the
// driver does.
func appendBinary(dst []byte, subtype byte, data []byte) []byte {
	if subtype == 0x02 {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(data)+4))
		dst = append(dst, subtype)
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(data)))
		return append(dst, data...)
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(data)))
	dst = append(dst, subtype)
	return append(dst, data...)
}

// appendRegex writes the options sorted, as the driver does (by rune, so
// invalid UTF-8 turns into U+FFFD).
//
// TODO(#2): MongoDB stores regex options as given; keeping them would
// break byte equality with the driver, which clients also use.
func appendRegex(dst []byte, re bson.Regex) (byte, []byte, error) {
	if strings.IndexByte(re.Pattern, 0) >= 0 || strings.IndexByte(re.Options, 0) >= 0 {
		return 0, nil, errors.New("BSON regex values cannot contain null bytes")
	}
	dst = append(dst, re.Pattern...)
	dst = append(dst, 0)
	dst = append(dst, sortedOptions(re.Options)...)
	return TypeRegex, append(dst, 0), nil
}

func sortedOptions(o string) string {
	if isSortedASCII(o) {
		return o
	}
	r := []rune(o)
	slices.Sort(r)
	return string(r)
}

func isSortedASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf || (i > 0 && s[i] < s[i-1]) {
			return false
		}
	}
	return true
}

// appendCodeWithScope writes int32 total, code string, scope document.
// Only a bson.D scope is encoded here; the driver handles the rest.
func appendCodeWithScope(dst []byte, c bson.CodeWithScope) (byte, []byte, error) {
	scope, ok := c.Scope.(bson.D)
	if !ok || scope == nil {
		return appendByDriver(dst, c)
	}
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = appendString(dst, string(c.Code))
	dst, err := appendDocument(dst, scope)
	if err != nil {
		return 0, nil, fmt.Errorf("code with scope: %w", err)
	}
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start))
	return TypeCodeWithScope, dst, nil
}

// isWholeDocument reports whether raw's length prefix and terminator
// frame exactly raw, so it can be embedded as is.
func isWholeDocument(raw bson.Raw) bool {
	return len(raw) >= 5 && int(binary.LittleEndian.Uint32(raw)) == len(raw) && raw[len(raw)-1] == 0
}
