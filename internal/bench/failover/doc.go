// Package failover is "relaydb bench failover": it measures what a client
// sees when the primary of a 3-member replica set is killed with kill -9,
// and the replication lag of the secondaries under YCSB workload A.
//
// A failover run starts a fresh set with internal/cluster (default
// settings), runs continuous writers (insertOne, w:"majority", retryable
// writes on, through the replicaSet URI) and a reader (find by _id from
// the primary), then repeats N trials: kill -9 the primary, time until
// replSetGetStatus on a survivor shows a new primary (election), time of
// the longest gap between consecutive acknowledged writes around the kill
// (the client-observed write unavailability: the driver's retry hides
// most errors, so failures alone would under-count it), restart the
// killed member and wait until it reports SECONDARY. It reports the
// median, min and max and every trial.
//
// The lag run loads workload A, runs it for a fixed time through
// internal/bench against the set while every member's own
// replSetGetStatus is polled; a secondary's lag at a poll is the time
// since the primary was first seen at an optime newer than the
// secondary's applied optime (so the resolution is the poll interval,
// not replSetGetStatus's one-second optimeDate).
//
// Invariants:
//   - Every wait is bounded (Config timeouts or the caller's context);
//     the set is stopped on every exit path.
//   - Nothing is discarded: failed writes and reads, failed status polls
//     and trials that did not recover are counted and reported.
//   - Decisions (gap, lag and summary computation, rendering) are pure
//     functions of recorded timestamps; I/O lives in run.go, load.go and
//     lag.go.
package failover
