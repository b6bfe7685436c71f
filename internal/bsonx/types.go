package bsonx

import (
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Canonical type brackets, as MongoDB ranks them (bsontypes.h
// canonicalizeBSONType). Values in different brackets compare by bracket.
const (
	CanonMinKey        = -1
	CanonUndefined     = 0
	CanonNull          = 5
	CanonNumber        = 10
	CanonString        = 15 // string and symbol
	CanonObject        = 20
	CanonArray         = 25
	CanonBinData       = 30
	CanonObjectID      = 35
	CanonBool          = 40
	CanonDate          = 45
	CanonTimestamp     = 47
	CanonRegex         = 50
	CanonDBPointer     = 55
	CanonJavaScript    = 60
	CanonCodeWithScope = 65
	CanonMaxKey        = 127
)

// BSON element type codes.
const (
	TypeDouble        byte = 0x01
	TypeString        byte = 0x02
	TypeObject        byte = 0x03
	TypeArray         byte = 0x04
	TypeBinData       byte = 0x05
	TypeUndefined     byte = 0x06
	TypeObjectID      byte = 0x07
	TypeBool          byte = 0x08
	TypeDate          byte = 0x09
	TypeNull          byte = 0x0A
	TypeRegex         byte = 0x0B
	TypeDBPointer     byte = 0x0C
	TypeJavaScript    byte = 0x0D
	TypeSymbol        byte = 0x0E
	TypeCodeWithScope byte = 0x0F
	TypeInt32         byte = 0x10
	TypeTimestamp     byte = 0x11
	TypeInt64         byte = 0x12
	TypeDecimal       byte = 0x13
	TypeMinKey        byte = 0xFF
	TypeMaxKey        byte = 0x7F
)

// TypeByte returns the BSON element type code of v, or 0 for a Go value
// that is not a BSON value. Go int maps to int64 when it does not fit
// int32 and to int32 otherwise; float32 maps to double.
func TypeByte(v any) byte {
	switch x := v.(type) {
	case float64, float32:
		return TypeDouble
	case string:
		return TypeString
	case bson.D:
		return TypeObject
	case bson.A, []any:
		return TypeArray
	case bson.Binary:
		return TypeBinData
	case bson.Undefined:
		return TypeUndefined
	case bson.ObjectID:
		return TypeObjectID
	case bool:
		return TypeBool
	case bson.DateTime:
		return TypeDate
	case nil, bson.Null:
		return TypeNull
	case bson.Regex:
		return TypeRegex
	case bson.DBPointer:
		return TypeDBPointer
	case bson.JavaScript:
		return TypeJavaScript
	case bson.Symbol:
		return TypeSymbol
	case bson.CodeWithScope:
		return TypeCodeWithScope
	case int32:
		return TypeInt32
	case bson.Timestamp:
		return TypeTimestamp
	case int64:
		return TypeInt64
	case int:
		if int64(x) == int64(int32(x)) {
			return TypeInt32
		}
		return TypeInt64
	case bson.Decimal128:
		return TypeDecimal
	case bson.MinKey:
		return TypeMinKey
	case bson.MaxKey:
		return TypeMaxKey
	}
	return 0
}

var canonByType = [256]int{
	TypeDouble: CanonNumber, TypeString: CanonString, TypeObject: CanonObject,
	TypeArray: CanonArray, TypeBinData: CanonBinData, TypeUndefined: CanonUndefined,
	TypeObjectID: CanonObjectID, TypeBool: CanonBool, TypeDate: CanonDate,
	TypeNull: CanonNull, TypeRegex: CanonRegex, TypeDBPointer: CanonDBPointer,
	TypeJavaScript: CanonJavaScript, TypeSymbol: CanonString,
	TypeCodeWithScope: CanonCodeWithScope, TypeInt32: CanonNumber,
	TypeTimestamp: CanonTimestamp, TypeInt64: CanonNumber, TypeDecimal: CanonNumber,
	TypeMinKey: CanonMinKey, TypeMaxKey: CanonMaxKey,
}

// CanonicalType returns the rank of v's type bracket (the Canon* constants):
// MinKey < undefined < null < numbers < string/symbol < object < array <
// binData < ObjectId < bool < date < timestamp < regex < dbPointer <
// javascript < javascriptWithScope < MaxKey. A non-BSON Go value ranks
// above MaxKey so that it never silently equals a real value.
func CanonicalType(v any) int {
	t := TypeByte(v)
	if t == 0 {
		return CanonMaxKey + 1
	}
	return canonByType[t]
}

var aliasByType = map[byte]string{
	TypeDouble: "double", TypeString: "string", TypeObject: "object",
	TypeArray: "array", TypeBinData: "binData", TypeUndefined: "undefined",
	TypeObjectID: "objectId", TypeBool: "bool", TypeDate: "date",
	TypeNull: "null", TypeRegex: "regex", TypeDBPointer: "dbPointer",
	TypeJavaScript: "javascript", TypeSymbol: "symbol",
	TypeCodeWithScope: "javascriptWithScope", TypeInt32: "int",
	TypeTimestamp: "timestamp", TypeInt64: "long", TypeDecimal: "decimal",
	TypeMinKey: "minKey", TypeMaxKey: "maxKey",
}

var typeByAlias = func() map[string]byte {
	m := make(map[string]byte, len(aliasByType))
	for t, a := range aliasByType {
		m[a] = t
	}
	return m
}()

// TypeAlias returns the $type alias of v ("double", "string", ...), or ""
// for a non-BSON Go value.
func TypeAlias(v any) string { return aliasByType[TypeByte(v)] }

// TypeFromAlias maps a $type alias to its BSON type code. "number" is not a
// single type and is left to callers.
func TypeFromAlias(s string) (byte, bool) {
	t, ok := typeByAlias[s]
	return t, ok
}

// TypeName returns the alias for a BSON type code, or "" if unknown.
func TypeName(t byte) string { return aliasByType[t] }
