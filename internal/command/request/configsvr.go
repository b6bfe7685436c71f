package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// ConfigsvrCommitChunkMigration is MongoDB's _configsvrCommitChunkMigration,
// which a donor shard's primary sends to the config server primary to
// commit a migration: {_configsvrCommitChunkMigration: "db.coll",
// fromShard, toShard, migratedChunk: {min, max, lastmod: {e, t, v}},
// fromShardCollectionVersion: {e, t, v}, validAfter}. It writes
// config.chunks, so it needs the primary.
type ConfigsvrCommitChunkMigration struct {
	cmdspec.Cmd                `cmd:"_configsvrCommitChunkMigration" roles:"primary"`
	NS                         string `cmd:",command"`
	FromShard                  string `cmd:"fromShard,required"`
	ToShard                    string `cmd:"toShard,required"`
	MigratedChunk              bson.D `cmd:"migratedChunk,required"`
	FromShardCollectionVersion any    `cmd:"fromShardCollectionVersion,required"`
	ValidAfter                 any    `cmd:"validAfter"`
}

// ConfigsvrEnsureChunkVersionIsGreaterThan is MongoDB's
// _configsvrEnsureChunkVersionIsGreaterThan: {..: 1, minKey, maxKey,
// version: {e, t, v}, collectionUUID, nss}, the fence a migration's
// recovery raises before it reads the placement.
type ConfigsvrEnsureChunkVersionIsGreaterThan struct {
	cmdspec.Cmd    `cmd:"_configsvrEnsureChunkVersionIsGreaterThan" roles:"primary"`
	Ignored        any    `cmd:",command"`
	MinKey         bson.D `cmd:"minKey,required"`
	MaxKey         bson.D `cmd:"maxKey,required"`
	Version        any    `cmd:"version,required"`
	CollectionUUID any    `cmd:"collectionUUID,required"`
	NSS            string `cmd:"nss,required"`
}
