// Package crash kills the real relaydb binary with SIGKILL at random
// moments and checks that every acknowledged write command survived
// (issue #9), on one server (j:true) and on a 3-member replica set with
// every member killed (w:"majority", j:true). The harness is
// internal/crashtest; this package starts the servers (tests/harness,
// internal/cluster) and sizes the runs.
//
//	RELAYDB_CRASH_SEED=N     replay a run (the seed is logged at start)
//	RELAYDB_CRASH_TRIALS=N   kill/restart trials per topology
//	                         (default: 12 standalone, 6 replica set)
//	RELAYDB_CRASH_KEEPGOING=1 run every trial after a lost op (to count them)
//	RELAYDB_BIN=path         test this binary instead of building one
package crash
