// Package sharding runs a real sharded cluster on loopback — a 1-member
// config server set (serve --configsvr), two 1-member shard sets (serve
// --shardsvr) and a router (relaydb router) — and checks it through the
// router with the official Go driver, and each shard directly.
//
// Invariants:
//   - Expected results are MongoDB's documented behaviour (mongos's hello,
//     addShard's error codes, a database on its primary shard).
//   - Every process is stopped by t.Cleanup and runs with Pdeathsig; every
//     wait is bounded.
package sharding
