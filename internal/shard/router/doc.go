// Package router is the query router of a sharded cluster (`relaydb
// router`, MongoDB's mongos). It holds no data: it answers hello as mongos
// does (msg "isdbgrid", no setName), keeps the cluster metadata on the
// config server replica set (config.shards, config.databases; package
// configsvr) and forwards each command to the primary of its database's
// primary shard, returning the shard's reply unchanged.
//
// Stage 1 of docs/sharding.md: every collection is unsharded, so a
// database lives on one shard and so does every cursor. The router
// remembers which member each cursor id came from (getMore and
// killCursors go there) and which shard each transaction runs on (a
// transaction that would touch a second shard is refused). Router cursors
// merging several shards' cursors, versioned requests and StaleConfig
// retries come with sharded collections (TODO(#11)).
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
