// Package routing is the routing table of one sharded collection, as
// MongoDB's ChunkManager keeps it: chunks [min, max) of the shard key
// space, each owned by one shard and stamped with the ChunkVersion
// (lastmod) of its last change; the collection version and each shard's
// placement version; finding the chunk of a key, targeting a query filter
// to shards, splitting a chunk, and the initial chunks of a newly sharded
// collection. It is pure: no I/O, no goroutines, no clocks; a
// ChunkManager is immutable and every change returns a new one.
//
// Invariants (checked by New, kept by Split):
//   - The chunks, sorted by min, cover [GlobalMin, GlobalMax) exactly once:
//     the first min is all MinKey, the last max all MaxKey, each chunk's max
//     is the next chunk's min, and min < max (key.Compare).
//   - Every bound is a key of the collection's pattern: its fields, in
//     order, with no arrays; a hashed field's bound is an int64, MinKey or
//     MaxKey (ShardKeyPattern::isValidHashedValue).
//   - Every chunk names a shard and carries a set version (major.minor not
//     0.0) of the collection's epoch and timestamp. The collection version
//     is the greatest lastmod, a shard's placement version the greatest
//     lastmod among its chunks (major.minor 0.0 when it owns none).
//   - Target never drops a shard that may own a matching document: when it
//     cannot use the filter it returns every shard; bounds are inclusive at
//     both ends, as MongoDB's getShardIdsForRange (isMaxInclusive) is.
package routing
