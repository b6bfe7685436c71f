// Package sim is a deterministic simulation of a replica set: several
// members in one process and one goroutine, each a real
// topology.Coordinator fed by a manual clock and a real catalog on
// in-memory Pebble (its own vfs.NewMem), joined by a fake network that
// delays, drops and partitions messages. Replication runs the real code
// paths: primaries write through catalog.Insert with their term stamped on
// the oplog, secondaries fetch entries from their topology-chosen sync
// source, apply them with applier.ApplyBatch, report positions upstream,
// and roll back with rollback.Run against an in-process Source serving the
// sync source's catalog. Everything is reproducible from a seed: there is
// no real time and no sleeping.
//
// A Cluster is driven by scripts (Exec: elect, partition, heal, kill,
// restart, stepdown, reconfig, write, status, check) and by seeded random
// schedules (Chaos). After every step and at the end it checks:
//
//   - Election safety: at most one member wins each term.
//   - Log matching: every oplog has strictly increasing ts and
//     non-decreasing terms, and two oplogs holding the same entry (ts and
//     term) hold the same prefix up to it.
//   - Durability: no majority-committed write (one the primary's commit
//     point covered while the write was in its oplog) is ever lost: every
//     member whose last OpTime is at or past it holds the entry and its
//     document, and every new primary holds all of them.
//   - Convergence (CheckConverged, after healing and a quiet period): all
//     live members hold the same oplog and the same documents, and there
//     is exactly one primary.
//
// Simplifications, each a TODO(#2): the fetch reply is computed when the
// request reaches the source (no tailable cursor), rollback reads the
// source directly at the moment the divergence is seen, the durable OpTime
// equals the applied one (MemFS loses nothing on restart), and configs are
// installed on every live member at once instead of via heartbeats.
//
// TODO(#10): drive the real repl.Coordinator instead of a bare
// topology.Coordinator. The seams exist: repl.Options.Clock (a
// clock.Manual shared by the cluster), repl.Options.Transport (a
// memnet.Network endpoint per member, each message delivered or dropped by
// the schedule; the seeded delay of net.go becomes "deliver message Seq
// once the clock passes its send time + delay", partitions become
// memnet Partition/Isolate) and Coordinator.Tick instead of Start's loop
// (repl/steppable_test.go does this for elections). What remains: (1) a
// seam for the fetch path, so the real Syncer (repl.NewSyncLoop:
// fetcher.Run, the applier, initialsync.Run, rollback.Run) fetches over
// memnet from the source's real command path with a stepped getMore
// instead of sync.go (startFetch, serveFetch, onFetchReply, apply) and
// source.go's hand-written find/getMore; (2) the coordinator's
// goroutines that are not steppable yet (the local oplog tail and durable
// loop, the position reporter, the feed of Syncer positions) turned into
// steps the driver calls, so sync.go's reportPosition/onUpdatePosition
// and member.go's do/becomePrimary/localWrite go, with
// replSetUpdatePosition travelling over memnet; (3) configs installed
// via replSetInitiate/replSetReconfig and heartbeats instead of at once;
// then net.go keeps only the delay/drop schedule over memnet.
package sim
