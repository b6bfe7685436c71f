// Package soak is "relaydb bench soak" (issue #9): a long, bounded run
// that mixes YCSB-like reads, inserts and updates, the DDL of
// internal/crashtest's generator and hostile connections (half headers
// that stall, a 37-byte OP_COMPRESSED zlib message claiming 48 MB, random
// garbage, connections opened and dropped) against a relaydb it starts
// itself, killing it with SIGKILL and restarting it every kill interval.
//
// Every acknowledged op is tracked: after each restart (and once more at
// the end) the YCSB documents are compared with their acknowledged
// versions and the DDL databases with crashtest's model. The server's RSS
// is sampled every second. The report is a markdown table; the exit code
// is non-zero if an acknowledged op was lost, RSS went over the bound or
// `relaydb tool verify` failed.
//
// Invariants:
//   - Every loop is bounded by the run's duration (and its own count or
//     timeout); all traffic is to 127.0.0.1.
//   - Checks run while no op is in progress and none can start (gate), so
//     an op's outcome is known before its effect is checked.
//   - Nothing is discarded: errors while the server was up, ops in flight
//     at a kill, refused hostile dials are all counted and reported.
package soak
