// Package balancer decides which ranges of sharded collections move
// between shards, as MongoDB 7.0's balancer policy does (size-based; zones
// are not supported), and where a hot chunk splits (loadsplit.go). It is pure: it is given each shard's state and each
// collection's chunks and data size per shard, and returns the migrations
// of one balancing round. Running them (the migration protocol, the
// balancer's loop on the config server primary, its window and on/off
// switch) is issue #12's other half: TODO(#12).
//
// Invariants of a round (Plan):
//   - A shard takes part in at most one migration per round, as donor or
//     recipient, so the migrations of a round run at once between
//     disjoint pairs of shards.
//   - A migration moves a chunk its donor owns, to a shard that is not
//     draining; From != To.
//   - Chunks on a draining shard move first (removeShard), whatever the
//     sizes; then a collection is balanced when the data size of its
//     largest and smallest non-draining shard differ by more than
//     ImbalanceFactor chunk sizes (MongoDB: three times the range size).
//   - A size migration moves at most ChunkSize bytes (MaxBytes): the donor
//     cuts the range at that size, so a large chunk is split rather than
//     left "jumbo".
//   - The same input always gives the same plan (collections, shards and
//     chunks are visited in a fixed order).
package balancer
