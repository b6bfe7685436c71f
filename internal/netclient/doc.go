// Package netclient is relaydb's node-to-node client: it sends commands to
// other members as OP_MSG (internal/wire) over pooled TCP connections and
// decodes the replies. ReplicaSet follows a replica set (a shard, the
// config servers) from its seed list with a monitor per member running
// awaitable hello, as the drivers' SDAM does, and sends commands to its
// primary; Select picks the member for a read by read preference (mode,
// tag sets, maxStalenessSeconds, latency window), as the drivers' Server
// Selection specification and mongos do (selection.go).
//
// Invariants:
//   - A connection is used by one request at a time: Run checks it out of
//     the pool and returns it only after a complete, well-framed reply.
//   - Any network or framing error (timeouts included) discards the
//     connection: a half-read reply never reaches the next request.
//   - ctx deadlines become socket deadlines, so a dead peer never blocks a
//     caller past its ctx.
//   - A reply with ok:0 is a *mongoerr.Error (code, message, labels); a
//     network failure is a wrapped Go error that is never a *mongoerr.Error.
//   - Options.Latency, when set, delays every send by that much (simulated
//     one-way delay for experiments); it honours ctx.
//   - A ReplicaSet's monitors run while it is used and stop when it or its
//     Pool is closed; a command is resent only when it was not executed or
//     the caller says it is idempotent.
//   - With Options.TLS every connection completes a TLS handshake (the
//     peer's chain and, unless the config skips it, its name as dialled)
//     within DialTimeout before its first command; nothing is sent plain.
package netclient
