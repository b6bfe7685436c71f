// Package shardfailover is "relaydb bench experiment shard-failover":
// YCSB workload A through the routers of a sharded cluster while a shard's
// primary is killed with kill -9, measuring what the YCSB-style clients
// saw on that shard and checking that no acknowledged write was lost
// (issue #12 item 5; the reference: a replica-set shard resumed in under
// 10 s, a single-node shard took about 120 s until restarted).
//
// For each mode (a 3-member replica set per shard; a single-member shard
// that must be restarted) it starts a fresh cluster with internal/cluster,
// shards ycsb.usertable on {_id: "hashed"} (two chunks per shard), loads
// it and runs workload A through internal/bench with a recording DB
// (w:"majority", retryable writes, primary reads, through every router).
// Every operation's start, end, owning shard (from the router's routing
// table: config.collections and config.chunks) and error class is kept.
// Each trial kills the primary of the next shard in turn, waits until an
// operation on that shard succeeds again (a single-member shard is
// restarted after Config.RestartAfter), then measures from the log:
//   - interruption: from the start of the first operation on the killed
//     shard that failed or stalled (ran longer than StallFactor x the p99
//     of that shard's operations before the kill, at least MinStall) and
//     was detected after the kill, to the first success on that shard
//     after it was detected;
//   - the longest gap between successes on that shard (and on the other
//     shards: YCSB's threads block on the dead shard), shared with
//     internal/bench/failover's window;
//   - the failed operations by error class.
//
// Every update also sets the field "a<worker>" to that worker's next
// sequence number, so each acknowledged write has a unique value and one
// writer per field: after the trials every document is read back through
// a router with readConcern majority, and an acknowledged write is lost
// when its field holds less than the last acknowledged number (a loaded
// document is lost when it is missing).
//
// Invariants:
//   - Every wait is bounded (Config timeouts or the caller's context); the
//     cluster is stopped on every exit path.
//   - Nothing is discarded silently: failed operations, failed trials and
//     operations beyond the log's cap are counted and reported.
//   - Decisions (stall threshold, interruption, gaps, loss, summaries,
//     rendering) are pure functions of the recorded log and ledger
//     (measure.go, ledger.go, report.go, markdown.go); I/O lives in run.go,
//     trial.go, db.go and owners.go.
package shardfailover
