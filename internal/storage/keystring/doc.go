// Package keystring is the order-preserving byte encoding of BSON values
// used for _id keys and index entries. It does no I/O.
//
// Invariants:
//   - bytes.Compare(AppendValue(nil, a, false), AppendValue(nil, b, false))
//     has the sign of bsonx.Compare(a, b); with desc=true the sign is
//     reversed (every byte is inverted).
//   - Values that compare equal encode to identical bytes: int32(1),
//     int64(1), 1.0 and decimal 1 all encode alike, as do a string and a
//     symbol with the same bytes. Numbers are encoded exactly (see
//     bsonx.Number), never rounded through float64.
//   - Every encoding is prefix-free, so concatenated encodings (compound
//     index keys followed by the _id) order as tuples.
//   - Every value of a canonical type bracket encodes to bytes in
//     [BracketLow(v), BracketHigh(v)) in ascending form.
//
// Layout: one bracket byte (ordered as bsonx.CanonicalType), then a body:
//
//	number     class byte (NaN < -Inf < neg < 0 < pos < +Inf); for finite
//	           non-zero values the magnitude: uint16 Exp+bias, uint64 Frac,
//	           exact flag, and for inexact decimals uint16 DecExp+bias,
//	           ASCII digits, 0x00; the magnitude is inverted when negative
//	string     bytes with 0x00 escaped as 0x00 0xFF, then 0x00 0x00
//	           (also symbol, javascript code, regex pattern and options)
//	object     per element: value bracket, escaped key, value body; 0x00
//	array      per element: value bracket, value body; then 0x00
//	binData    uint32 length, subtype, data
//	objectId   12 bytes; bool: 0 or 1; date: int64 with the sign bit flipped
//	timestamp  uint32 T, uint32 I; dbPointer: uint32 length, ns, 12-byte id
//
// All integers are big-endian. Decode returns a value equal to the one
// encoded, in a canonical type: numbers per bsonx.NumberValue (int64 for
// integers in range, else float64 when exact, else Decimal128), symbols as
// string, arrays as bson.A, documents as bson.D.
//
// TODO(#2): the original numeric type (and symbol vs string) is not
// recoverable from the key; a covered query that must return the exact
// type needs MongoDB-style "type bits" stored beside the key, or a fetch.
package keystring
