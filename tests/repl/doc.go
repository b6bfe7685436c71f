// Package repl runs real relaydb replica sets on loopback (built with
// internal/cluster) and checks them with the official MongoDB Go driver:
// replication, kill -9 failover under a writer, hello/SDAM fields, the
// primary/secondary error codes, write concerns and step-down.
//
// Invariants:
//   - Expected results are MongoDB's documented behaviour; a failing test
//     is a server bug or a missing feature, never a reason to loosen it.
//   - Every test that needs replication calls requireReplication first: it
//     fails (never skips) with a clear message when `serve --replSet` +
//     replSetInitiate do not work at all.
//   - Every wait is bounded; members run with Pdeathsig so none outlives
//     the test binary, and every set is stopped by t.Cleanup or TestMain.
//   - Only the slowest test (failover) skips under -short.
package repl
