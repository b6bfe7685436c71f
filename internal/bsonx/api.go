// Package bsonx holds the pure BSON helpers every layer shares: MongoDB's
// cross-type comparison order, type names, numeric conversion, dotted-path
// lookup and validated decoding. It does no I/O.
//
// Values are what go.mongodb.org/mongo-driver/v2/bson decodes into a bson.D:
// bson.D (document), bson.A (array), float64, string, bson.Binary,
// bson.Undefined, bson.ObjectID, bool, bson.DateTime, nil (null),
// bson.Regex, bson.DBPointer, bson.JavaScript, bson.Symbol,
// bson.CodeWithScope, int32, bson.Timestamp, int64, bson.Decimal128,
// bson.MinKey, bson.MaxKey. Functions also accept plain Go int, float32 and
// bson.M-free values a caller may construct; they never accept bson.M.
//
// Invariant: Compare(a, b) is a total order consistent with MongoDB's sort
// order (numbers compare by value across int32/int64/double/decimal; NaN
// sorts below all other numbers), and keystring encoding (storage/keystring)
// orders bytes exactly as Compare orders values.
package bsonx

import "go.mongodb.org/mongo-driver/v2/bson"

// TODO(#2): API contract; bodies implemented in the files beside this one.
var _ = bson.D{}
