// Package router is the query router of a sharded cluster (`relaydb
// router`, MongoDB's mongos). It holds no data: it answers hello as mongos
// does (msg "isdbgrid", no setName), keeps the cluster metadata on the
// config server replica set (package configsvr) and routes each command
// (docs/sharding.md): a command of an unsharded collection to the primary
// of its database's primary shard, returning the shard's reply unchanged
// (as bytes on the fast path, rawforward.go); a command of a sharded
// collection to the shards its routing table targets, each with its
// shardVersion, combining their replies (sharded*.go, mergecursor.go,
// aggmerge*.go, withoutshardkey.go, explain*.go).
//
// A cursor on one shard keeps the shard's id (the router remembers the
// member; getMore and killCursors go there); a router cursor over several
// shards has an id of its own. A transaction runs on one shard (one that
// would touch a second shard is refused).
//
// Invariants:
//   - A command is forwarded to one shard member only (the primary; for
//     a read outside a transaction whose $readPreference mode is not
//     primary, the member server selection picks: readpref.go); writeConcern,
//     readConcern, lsid/txnNumber, $readPreference and $clusterTime go
//     through untouched, and the shard's reply comes back unchanged.
//   - A command is resent to a newly discovered primary only when the old
//     one cannot have executed it (NotWritablePrimary replies, failures to
//     connect) or when it is safe to repeat (reads, retryable writes);
//     otherwise the client gets HostUnreachable, with RetryableWriteError
//     on a retryable write, and retries as it would with mongos.
//   - Metadata is read with majority read concern and written with
//     majority write concern on the config server primary.
package router
