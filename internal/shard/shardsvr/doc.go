// Package shardsvr is the shard side of a sharded cluster: a shard's
// sharding state (MongoDB's ShardingState and CollectionShardingRuntime).
// A shard learns its name and the config servers from the shardIdentity
// document addShard writes into its admin.system.version; per namespace
// it keeps the filtering metadata it knows (the routing table, or
// unsharded), loaded from the config servers on first use. Every request
// a router sends for a collection carries shardVersion (and, for an
// unsharded one, databaseVersion); the shard serves it only when the
// version matches its own, and otherwise answers StaleConfig (13388) or
// StaleDbVersion (249) with MongoDB's extra info, so the router refreshes
// and retries.
//
// Invariants:
//   - A request is served only if its shard version is write-compatible
//     (MongoDB's isWriteCompatibleWith: same epoch, timestamp and major)
//     with this shard's placement version after at most one refresh from
//     the config servers; a collection this shard believes unsharded
//     wants Unsharded (epoch 0, Timestamp(0, 0), 0|0).
//   - Concurrent requests that find the same namespace stale cause one
//     read of the config servers, not one each.
//   - Metadata is read with readConcern majority, so it never goes back
//     to a version a config server failover could roll back.
//   - Without a shardIdentity document, versioned requests fail with
//     ShardingStateNotInitialized (203); unversioned ones are served.
//   - An update of a collection whose metadata this shard has loaded
//     never writes a document whose new shard key it does not own: it
//     answers WouldChangeOwningShard (283) instead and the router moves
//     the document (keychange.go, exec.KeyGuard).
//   - While a namespace's critical section is held (a router's DDL), no
//     versioned operation on it is admitted, and those admitted before
//     have finished; its exit makes the next check reload the metadata
//     (critsec.go).
//
// Reads and writes a router versions are filtered by ownership
// (ownership*.go, exec.OwnershipFilter); ranges this shard does not own
// are deleted by the range deleter (rangedeleter*.go) from persisted
// tasks. Chunk migrations (Migrations: migdonor*.go on the donor,
// migsource.go serving the clone and its changes, migrecipient.go on the
// recipient) hold a critical section of the migrating range only
// (migsection.go) and schedule the deletion of the copy left behind.
package shardsvr
