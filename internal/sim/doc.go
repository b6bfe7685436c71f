// Package sim is a deterministic simulation of a replica set that runs
// relaydb's real replication code: several members in one process, each
// assembled as relaydb serve assembles one (a catalog on its own in-memory
// Pebble filesystem, markers.Recover, the executor, the command dispatcher
// and a repl.Coordinator with its sync loop), joined by a memnet network
// and driven by one manual clock. Nothing here re-implements replication:
//
//   - Elections, heartbeats, votes, step-downs, configs (replSetInitiate,
//     replSetReconfig, learned by heartbeat) and the commit point are the
//     coordinator's, its messages memnet messages answered by the
//     receiver's command dispatcher (the command table's replSet*
//     handlers).
//   - Each secondary's sync loop is repl.NewSyncLoop in stepped mode: its
//     rounds (fetcher.Run, the applier, initialsync.Run, rollback.Run via
//     repl.RollbackHook) run on a memnet.Coroutine, and every find, getMore
//     and listCollections they send is a memnet message to the source's
//     dispatcher, delivered when the schedule says. Only one goroutine runs
//     at a time, so a seed replays exactly.
//   - Positions travel as replSetUpdatePosition; clients write with the
//     insert command (w:1).
//
// The schedule (net.go) delays each message by a seeded amount, drops a
// seeded share of them, fails messages to dead members at once and those
// across a partition at the sender's timeout. A Cluster is driven by
// scripts (Exec: run, write, partition, heal, kill, restart, killsource,
// powerfail, diskfault, stepdown, reconfig, status, check, converged) and
// by seeded random schedules (Chaos). After every step and at the end it checks:
//
//   - Election safety: at most one member is primary in each term.
//   - Log matching: every oplog has strictly increasing ts and
//     non-decreasing terms, and two oplogs holding the same entry (ts and
//     term) hold the same prefix up to it (from where both start: an
//     initial-synced member's oplog begins at its sync's begin point).
//   - Durability: no majority-committed write (one the primary's commit
//     point covered while the write was in its oplog) is ever lost: every
//     member whose last OpTime is at or past the commit point that covered
//     it holds the entry (or, before its oplog starts, the document), and
//     every new primary holds all of them.
//   - Convergence (CheckConverged, after healing and a quiet period): all
//     live members hold the same oplog (from where both start) and the
//     same documents, and there is exactly one primary.
//
// TestBugsAreCaught switches on defects injected into the real code
// (package bugs) and requires a seed to catch each.
//
// Disks are strict in-memory filesystems behind Pebble's vfs/errorfs: a
// power failure keeps only what was synced, and an armed disk fault fails
// the member's next WAL write or sync, which stops the member as
// storage.Fatal stops the process (it is cut off at once and killed,
// keeping what was synced). Nothing a majority acknowledged may be lost.
//
// Simplification: awaitData is stripped from the fetcher's find (an idle
// source answers an empty batch at once instead of holding the getMore for
// maxTimeMS of real time; the fetcher asks again a step later).
package sim
