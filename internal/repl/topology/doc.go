// Package topology is the pure replica-set state machine of one member,
// modelled on MongoDB's protocol version 1 (TopologyCoordinator): member
// states, terms, votes, elections (dry run, randomized timeout, priority
// takeover, catch-up), step-down, sync-source choice and the majority
// commit point. A Coordinator is fed events with the current time and
// returns Actions; it never blocks, sleeps, does I/O or starts goroutines.
// The I/O coordinator (package repl) owns timers, sockets and storage.
//
// Invariants:
//   - At most one vote per term, and a real vote is returned together with
//     a PersistVote that the caller stores durably before replying.
//   - A vote goes only to a candidate whose last applied OpTime (term, then
//     timestamp) is at least ours; dry runs change no term and record no vote.
//   - The commit point never moves back; a primary commits nothing before
//     the first entry of its own term (its no-op) is majority-replicated.
//     Majority is min(voters/2+1, voters-arbiters) voting data-bearing
//     members, on written OpTimes (durable with
//     writeConcernMajorityJournalDefault).
//   - Any message carrying a newer term makes a primary step down first.
//
// Relaydb's LAN defaults (MongoDB's WAN defaults in brackets; the config
// settings of the same names override them): heartbeatIntervalMillis 500
// [2000], electionTimeoutMillis 1500 [10000] plus a random 0-15% offset,
// catchUpTimeoutMillis 1000 [unbounded], a member counts as down after one
// election timeout without answers [heartbeatTimeoutSecs 10],
// changeSyncSourceThreshold 1 ms [5 ms], priority takeover after one
// heartbeat interval per higher-priority member. A dead primary is thus
// replaced within about 1.5-1.75 s plus a few round trips.
//
// Sync sources: chainingAllowed false pulls from the primary; true pulls
// from the closest (heartbeat RTT) readable, non-hidden, non-arbiter member
// that is ahead of us and not more than 30 s behind the primary;
// chainingMode "auto" (relaydb, autodirect.go) has the primary list its
// direct readers from the write concern its writers wait for (one under
// w:1, k voters when they wait for k acknowledgements); everyone else
// chains off secondaries breadth-first within a distance band (fewest hops
// from the primary among candidates within changeSyncSourceThreshold of
// the closest, then RTT), at most settings.chainFanout (default 3) per
// source. replSetSyncFrom overrides until the source fails. Distance is
// the least of a member's last 8 heartbeat RTTs (rtt.go).
// Liveness: a candidate must be strictly ahead of our last fetched OpTime
// (the primary may be level) and its chain of sync sources, as heartbeats
// report them, must not lead back to us; a source that is not ahead, is
// not the primary and whose chain neither reaches the primary nor passes a
// member ahead of us has stalled (a cycle, or a chain whose head stopped)
// and counts as failed while some other member is ahead.
package topology
