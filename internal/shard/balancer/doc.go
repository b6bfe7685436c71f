// Package balancer moves ranges of sharded collections between shards, as
// MongoDB 7.0's balancer does (size-based; zones are not supported), and
// splits and spreads ranges that take too much load (relaydb's own, as
// CockroachDB and TiKV do).
//
// The decisions are pure: Plan (policy.go) and PlanLoad (hot.go) are
// given each shard's state and each collection's chunks, data size and
// load per shard, and return the migrations of one round; LoadSplitter
// (loadsplit.go) finds a chunk's load split key. The round (round.go,
// run.go) does the I/O through two interfaces: Cluster (the config
// database on this config server primary: config.settings, config.shards,
// the routing tables, the split commit) and ShardClient (each shard's
// primary: _shardsvrGetStatsForBalancing, autoSplitVector,
// _shardsvrMoveRange). cluster.go and shards.go are their real
// implementations; settings.go reads config.settings (mode, activeWindow,
// chunksize, hotRangeOpsPerSec), params.go the server parameters
// balancerRoundIntervalMS and loadSampleWindowMS, collstatus.go answers
// balancerCollectionStatus from the same plan.
//
// Invariants of a round (Plan, PlanLoad):
//   - A shard takes part in at most one migration per round, as donor or
//     recipient, so the migrations of a round run at once between
//     disjoint pairs of shards.
//   - A migration moves a chunk its donor owns, to a shard that is not
//     draining; From != To.
//   - Chunks on a draining shard move first (removeShard), whatever the
//     sizes; then a collection is balanced when the data size of its
//     largest and smallest non-draining shard differ by more than
//     ImbalanceFactor chunk sizes (MongoDB: three times the range size);
//     then, among the shards still free, a shard serving more than the
//     hot threshold of a collection's operations gives part of its
//     hottest chunk to the shard serving fewest (less than half as many).
//   - The same input always gives the same plan (collections, shards and
//     chunks are visited in a fixed order).
//
// Invariants of the loop (Balancer):
//   - Rounds run only while this member is primary; a step-down cancels
//     the round in flight within 250 ms, and the next primary's loop
//     starts from the metadata (nothing is kept between rounds but the
//     counters of Status).
//   - No range larger than the chunk size is sent: before a move the
//     donor's autoSplitVector is asked for the first key at the chunk
//     size and the chunk is split there (committed on the config
//     servers), so a large chunk is split rather than left jumbo. Only
//     a chunk of a single key larger than the chunk size cannot be cut:
//     it is remembered as jumbo (in memory, by version) and size
//     balancing picks another chunk; draining moves it all the same.
//   - Splits are committed one at a time, each from the routing table the
//     previous one produced (versions stay unique); moves then run at once.
//   - config.settings is read every round: balancerStop (mode "off") and
//     the active window take effect at the next round.
package balancer
