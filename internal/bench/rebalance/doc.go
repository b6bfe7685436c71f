// Package rebalance is "relaydb bench experiment rebalance" (issue #12
// item 6): how fast the balancer moves data onto a shard added to a
// running cluster, and what that costs the foreground workload.
//
// Each run starts a fresh sharded cluster (internal/cluster: Shards
// shards of ShardMembers members, one config server by default, Routers
// routers), sets config.settings chunksize (small, so the balancer has
// ranges to move) and balancerRoundIntervalMS, shards ycsb.usertable on
// {_id: "hashed"} with ChunksPerShard chunks per shard, loads Records
// records and measures the unthrottled throughput of the workload in a
// short probe. Then the workload runs throttled to Fraction of that
// throughput (so latency is service time, not queueing) through every
// router, one recording DB per client thread, across three phases:
//   - before: Before of the workload on the first shards;
//   - during: Add shards are added as `relaydb cluster add-shard` adds
//     them (cluster.Sharded.AddShard), then the balancer moves ranges onto
//     them; the phase ends when balancerCollectionStatus has said
//     balancerCompliant for Quiet without a break (its end is the first
//     compliant answer of that streak), or at MaxDuring;
//   - after: Quiet later, After more of the workload.
//
// Each migration's clonedBytes and time come from its donor's "migration
// finished" log line (internal/shard/shardsvr).
//
// Invariants:
//   - Every operation is assigned to the phase its start falls in;
//     operations between phases (the quiet wait) count in none, and an
//     operation cut short by the end of the run is not recorded.
//   - Nothing is discarded silently: failed operations count per phase,
//     with a sample of their messages; a run that fails is kept with its
//     error; a during phase that hit MaxDuring is flagged.
//   - The goal (p99 during / p99 before <= GoalRatio) is judged on the
//     median ratio over the runs of a case.
//   - Every wait is bounded (MaxDuring, the caller's context) and the
//     cluster is stopped on every exit path.
//   - Decisions are pure functions of their inputs (config.go's defaults
//     and checks, measure.go's phase statistics, migrations.go's log
//     parsing, report.go's medians and goal, markdown.go, chart.go); I/O
//     is in recorder.go, cluster.go, run.go and cli.go.
//
// Notes: hashed chunks are cut at the chunk size before they move
// (autoSplitVector walks the hashed index). Replicated shards
// (--shard-members) are supported; bench/results/rebalance.md measures
// single-member ones. The pace is the balancer's: one migration per
// shard per round and 1 s after a round that moved (MongoDB's); the
// experiment sets balancerRoundIntervalMS to 1 s so the first round after
// the shard is added does not wait the default 10 s. A 50 ms pause after
// a moving round was measured once (2 -> 3 and 2 -> 4 shards: 3.0 and
// 3.75 MB/s in total instead of 1.1 and 1.6, but p99 during / before
// x2.3 and x2.2, over the 2x goal), so the balancer keeps 1 s.
package rebalance
