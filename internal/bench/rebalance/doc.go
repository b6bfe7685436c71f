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
// TODO(#12): range-sharded usertable (the balancer cuts ranges there with
// autoSplitVector; hashed chunks move whole, see balancer's round.go);
// replicated shards are supported (--shard-members) but not yet measured.
// TODO(#12): the measured pace is the balancer's (one migration per shard
// per round, balancerRoundIntervalMS between rounds: ~1 migration/s per
// recipient against ~130 ms per migration on the donor); the experiment
// sets the interval to 1 s, so relaydb's default (10 s) is not measured.
package rebalance
