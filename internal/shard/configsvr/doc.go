// Package configsvr owns the `config` database of a sharded cluster as
// MongoDB keeps it: the documents of config.shards and config.databases
// (their BSON shapes, parsing, the choice of a new database's primary
// shard) and a Catalog that reads them with majority read concern and
// writes them with majority write concern on the config server primary.
//
// Invariants:
//   - Every change is one majority-acknowledged write; a reply carrying a
//     writeConcernError is an error, so a caller never acts on metadata a
//     config server failover could roll back.
//   - Reads use readConcern majority, so a router never routes by metadata
//     that may still be rolled back.
//   - A database has exactly one config.databases document (its _id is the
//     name): concurrent creators race on the insert and the loser reads the
//     winner's document, so every router agrees on the primary shard.
//
// Routers write these documents themselves (with the client's write
// concern made majority). A migration's commit and its fence run on the
// config server primary (_configsvrCommitChunkMigration,
// _configsvrEnsureChunkVersionIsGreaterThan: migration.go), serialized
// in that process by chunkOpLock; moving the other metadata writes there
// so the config primary is the only writer is TODO(#14).
package configsvr
