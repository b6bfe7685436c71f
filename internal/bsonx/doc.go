// Package bsonx holds the pure BSON helpers every layer shares: MongoDB's
// cross-type comparison order, type names, numeric conversion, dotted-path
// lookup, deep copies and validated decoding. It does no I/O.
//
// Values are what go.mongodb.org/mongo-driver/v2/bson decodes into a bson.D:
// bson.D (document), bson.A (array), float64, string, bson.Binary,
// bson.Undefined, bson.ObjectID, bool, bson.DateTime, nil (null),
// bson.Regex, bson.DBPointer, bson.JavaScript, bson.Symbol,
// bson.CodeWithScope, int32, bson.Timestamp, int64, bson.Decimal128,
// bson.MinKey, bson.MaxKey. Functions also accept plain Go int, float32,
// bson.Null and []any a caller may construct; they never accept bson.M.
//
// Invariants:
//   - Compare(a, b) is a total order consistent with MongoDB's sort order:
//     values order first by canonical type bracket (CanonicalType), then by
//     value within the bracket. Numbers compare by exact value across
//     int32/int64/double/decimal (no rounding through float64); NaN sorts
//     below all other numbers and equals itself; -0 equals 0.
//   - Compare(a, b) == 0 exactly when the values are equal for MongoDB
//     (Equal), so int32(1), int64(1), 1.0 and decimal 1 are equal.
//   - SplitNumber yields a canonical exact form of a number; two numbers are
//     equal exactly when their forms are equal. storage/keystring encodes
//     that form, so keystring bytes order exactly as Compare orders values.
//   - Decode never panics; any malformed input yields a *mongoerr.Error with
//     code InvalidBSON (22), or Overflow (15) for over-deep nesting.
//   - Decode yields exactly what bson.Unmarshal yields into a bson.D (empty
//     documents and arrays are non-nil, binData is never nil) and nothing
//     it returns aliases its input. Keys, short strings and binData of one
//     document level share two allocations (see arena), so keeping one
//     value keeps at most its level's share alive.
//   - Encode and AppendDocument write the bytes bson.Marshal writes for
//     every document it accepts, except that they refuse bson.M and
//     map[string]any (random key order) and embed a bson.Raw whose length
//     and terminator frame it without checking its elements.
package bsonx
