package bsonx

import (
	"encoding/binary"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// decodeString decodes a string, JavaScript or symbol value.
func decodeString(t byte, b []byte, a *arena) (any, int, error) {
	n, err := bsonString(b)
	if err != nil {
		return nil, 0, err
	}
	s := a.str(b[4 : n-1])
	switch t {
	case TypeJavaScript:
		return bson.JavaScript(s), n, nil
	case TypeSymbol:
		return bson.Symbol(s), n, nil
	}
	return s, n, nil
}

// binaryValue decodes binData into a copy of its bytes (never nil, as the
// driver returns). For the old subtype 2 with more than 4 bytes the inner
// length prefix is dropped, as the driver does; with exactly 4 bytes the
// driver keeps them.
func binaryValue(b []byte, a *arena) (any, int, error) {
	n, err := binData(b)
	if err != nil {
		return nil, 0, err
	}
	data := b[5:n]
	if b[4] == 0x02 && len(data) > 4 {
		data = data[4:]
	}
	return bson.Binary{Subtype: b[4], Data: a.bytes(data)}, n, nil
}

// scalarValue decodes the fixed-size types, bool, regex and DBPointer.
func scalarValue(t byte, b []byte) (any, int, error) {
	if n, ok := scalarSize(t); ok && len(b) < n {
		return nil, 0, truncated(b, n)
	}
	switch t {
	case TypeUndefined:
		return bson.Undefined{}, 0, nil
	case TypeObjectID:
		return bson.ObjectID(b[:12]), 12, nil
	case TypeBool:
		if len(b) < 1 || b[0] > 1 {
			return nil, 0, invalid("boolean is not 0 or 1")
		}
		return b[0] == 1, 1, nil
	case TypeDate:
		return bson.DateTime(int64(binary.LittleEndian.Uint64(b))), 8, nil
	case TypeNull:
		return nil, 0, nil
	case TypeRegex:
		return regexValue(b)
	case TypeDBPointer:
		return dbPointerValue(b)
	case TypeInt32:
		return int32(binary.LittleEndian.Uint32(b)), 4, nil
	case TypeTimestamp:
		i, ts := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])
		return bson.Timestamp{T: ts, I: i}, 8, nil
	case TypeInt64:
		return int64(binary.LittleEndian.Uint64(b)), 8, nil
	case TypeDecimal:
		lo, hi := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
		return bson.NewDecimal128(hi, lo), 16, nil
	case TypeMinKey:
		return bson.MinKey{}, 0, nil
	case TypeMaxKey:
		return bson.MaxKey{}, 0, nil
	}
	return nil, 0, invalid("unknown element type 0x%02x", t)
}

// scalarSize is the size of a fixed-size value type.
func scalarSize(t byte) (int, bool) {
	switch t {
	case TypeObjectID:
		return 12, true
	case TypeDouble, TypeDate, TypeTimestamp, TypeInt64:
		return 8, true
	case TypeInt32:
		return 4, true
	case TypeDecimal:
		return 16, true
	case TypeUndefined, TypeNull, TypeMinKey, TypeMaxKey:
		return 0, true
	}
	return 0, false
}

func regexValue(b []byte) (any, int, error) {
	p, err := cstring(b)
	if err != nil {
		return nil, 0, err
	}
	o, err := cstring(b[p:])
	if err != nil {
		return nil, 0, err
	}
	re := bson.Regex{Pattern: string(b[:p-1]), Options: string(b[p : p+o-1])}
	return re, p + o, nil
}

func dbPointerValue(b []byte) (any, int, error) {
	n, err := bsonString(b)
	if err != nil {
		return nil, 0, err
	}
	if len(b)-n < 12 {
		return nil, 0, truncated(b[n:], 12)
	}
	ptr := bson.DBPointer{DB: string(b[4 : n-1]), Pointer: bson.ObjectID(b[n : n+12])}
	return ptr, n + 12, nil
}
