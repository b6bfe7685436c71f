// Package repl is the replica-set coordinator of one member: the goroutines,
// timers, sockets and storage around the pure state machine in
// repl/topology. It sends heartbeats and vote requests, answers the
// replSet* commands, persists the config (local.system.replset) and the
// last vote (local.replset.election), writes a new primary's no-op, runs
// the sync loop (Syncer) from the sync source topology chooses, reports
// positions upstream (replSetUpdatePosition) and wakes write-concern
// waiters. It implements command.Replication.
//
// It reaches time only through Options.Clock (package clock), other
// members only through Options.Transport (*netclient.Pool in relaydb
// serve) and the sync source only through SyncOptions.Dial, so a driver
// can step it (Options.Stepped, SyncOptions.Stepped): with a clock.Manual,
// a memnet.Network and no Start, it calls Tick and Step, advances the
// clock and delivers messages itself; the sync loop's rounds run on
// memnet coroutines (internal/sim, steppable_test.go). Storage is the
// member's own catalog, on an in-memory filesystem in the simulator.
//
// Invariants:
//   - Every call into the topology.Coordinator happens under Coordinator.mu;
//     the actions it returns are carried out before mu is released, except
//     network sends, which are only queued (Transport.Send) and whose
//     answers come back through callbacks that take mu.
//   - A vote is durable (catalog write + WaitDurable) before the vote
//     request is answered and before a candidate asks for votes.
//   - Writes are accepted only after the new primary's no-op of its term is
//     written (BecomePrimary), and stop being accepted at the StepDown
//     action, before anything else is done.
//   - Readers on the command path (CheckWrite, CheckRead, HelloFields) use
//     an immutable snapshot published after every event, never mu.
//   - Write-concern and awaitable-hello waiters are woken by closing a
//     channel when positions or the topology change; nothing polls.
//   - Syncer callbacks never take mu: they post positions that the loop
//     goroutine feeds to the topology, so stopping a Syncer under mu cannot
//     deadlock.
//   - Writes to the local database write no oplog entry (catalog), so the
//     persisted replication state is never replicated.
package repl
