// Package key is the shard key as MongoDB defines it (ShardKeyPattern): the
// pattern, a document's key under it, MongoDB's hash of a value and the
// order of keys. It is pure: no I/O, no goroutines, no clocks.
//
// Invariants:
//   - A Pattern has at least one field; each field is a dotted path with no
//     empty part and no part starting with '$' (a DBRef part "$id", "$ref"
//     or "$db" after the first is allowed); each is ascending (a number
//     equal to 1 when truncated to int) or "hashed"; at most one is hashed;
//     no path equals or is a prefix of another (relaydb refuses these; see
//     Parse).
//   - Extract returns a key with exactly the pattern's fields, in order,
//     named by the pattern's paths: a missing field is null, a hashed
//     field is the int64 Hash of its value, and an array anywhere on a
//     path is refused with ShardKeyNotFound (61), as MongoDB does.
//   - Hash(v) is MongoDB's BSONElementHasher::hash64(v, seed 0): numbers
//     hash as their int64 (truncated toward zero, clamped, NaN as 0), so
//     int32(1), int64(1), 1.0 and 1.9 hash alike; string and symbol hash
//     alike; everything else hashes its canonical type and BSON value.
//   - Compare orders keys by their values position by position (field
//     names are ignored, as MongoDB's KeyString of a shard key does), in
//     MongoDB's BSON order (bsonx.Compare): MinKey < ... < MaxKey.
package key
