// Package migrate is the pure state machine of one chunk migration, as
// the donor shard's primary drives it (MongoDB's MigrationSourceManager
// and its migration coordinator; the recipient's side answers the
// commands it is sent). A Coordinator is fed events and returns actions;
// it never blocks, sleeps, does I/O or starts goroutines. The I/O side
// is shard/shardsvr's Migrations (migdonor*.go drives a Coordinator).
//
// The protocol (docs/sharding.md, "Chunk migration"):
//
//	persist the coordinator document (no decision)
//	recipient: start (clone the range from a donor snapshot, then catch
//	  up from the donor's oplog filtered to the range); its answer and
//	  each poll report the clone's status
//	caught up (pending mods under the threshold) → donor enters the
//	  range's critical section (writes to the range wait)
//	recipient: commit start (apply the last mods; it now has every
//	  write acknowledged to the range)
//	config servers: commit the new placement (majority)
//	persist the decision, release the critical section (the shards
//	  refresh), delete the range: the donor's copy after a commit, the
//	  recipient's after an abort
//
// Invariants (checked by the scripts under testdata):
//   - The placement is committed on the config servers only while the
//     donor holds the critical section and after the recipient confirmed
//     commit start: no acknowledged write to the range is missing on the
//     recipient.
//   - A decision (committed or aborted) is persisted on the donor before
//     any range is deleted or the critical section released, and there is
//     exactly one decision per migration.
//   - After a commit request whose answer was lost (a network error, the
//     donor stepping down), the decision is taken from the config
//     servers' placement, never guessed, and only after the collection's
//     version was bumped past the one the commit carries, so a request
//     still in flight cannot land later: the chunk owned by the recipient
//     means committed, by the donor aborted.
//   - Before the commit request is sent, any failure aborts: the
//     recipient's copy is deleted and the donor keeps the range.
package migrate
