// Package integration runs the real relaydb binary on loopback and talks to
// it with the official MongoDB Go driver (and, in wire_test.go, raw TCP).
//
// Invariants:
//   - Every test bounds its time with context timeouts; no test waits forever
//     on the server.
//   - Expected results are MongoDB's documented behaviour, not whatever
//     relaydb happens to do: a failing test here is a server bug (see
//     KNOWN_FAILURES.md), never a reason to loosen the check.
//   - Randomized tests print their seed and accept RELAYDB_IT_SEED to replay.
//   - Servers are started through tests/harness (which honours RELAYDB_BIN)
//     and are stopped by t.Cleanup.
package integration
