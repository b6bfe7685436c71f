// Package mongosh runs the real mongosh shell against a relaydb sharded
// cluster: the sharding helpers (sh.addShard, sh.enableSharding,
// sh.shardCollection, sh.splitAt, sh.splitFind, sh.status,
// db.printShardingStatus, getShardDistribution) through a router.
//
// The shell is found in $RELAYDB_MONGOSH (scripts/test installs a pinned
// mongosh into .tools/mongosh and sets it). Without it the tests skip,
// except when CI=true, where they fail: CI must run them.
//
// Invariants:
//   - Scripts print what the test checks as one EJSON line after a marker
//     (shellJSON); assertions read that JSON, not the shell's prose, except
//     for the few lines a user reads first.
//   - mongosh runs with --quiet (no update check), telemetry off, a
//     temporary HOME and a bounded time; it talks only to 127.0.0.1.
package mongosh
