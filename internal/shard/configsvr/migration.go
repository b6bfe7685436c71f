package configsvr

import (
	"context"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// maxChunkHistoryItems bounds the history entries kept per chunk (MongoDB
// trims by a time window; a count keeps documents bounded too).
const maxChunkHistoryItems = 16

// chunkOpLock serializes the chunk operations of this process (MongoDB's
// _kChunkOpLock on the config server primary), so that two commits never
// derive their versions from the same collection version.
var chunkOpLock sync.Mutex

// MigrationVersions is what a migration commit answers: the donor's
// placement version afterwards (major 0, minor 0 when it owns no chunk
// any more) and the collection's.
type MigrationVersions struct {
	Shard      routing.ChunkVersion
	Collection routing.ChunkVersion
}

// CommitChunkMigration commits the move of chunk migrated [Min, Max) of
// ns from shard from to shard to, as MongoDB 7.0's config server does
// for _configsvrCommitChunkMigration:
//   - to must be a shard (ShardNotFound); ns must be sharded
//     (ConflictingOperationInProgress) with the epoch and timestamp of
//     collVersion (the donor's, fromShardCollectionVersion; StaleEpoch);
//   - migrated.Lastmod must be set (4683300) and not older than the
//     version of the chunk covering the range (ConflictingOperationInProgress:
//     this is what makes a commit fenced by EnsureChunkVersionIsGreaterThan
//     fail);
//   - the range already on to is a commit done before: the current
//     versions are answered and nothing changes (a retry is idempotent);
//     on neither shard it is 4914702, covered by no chunk 40165.
//
// The migrated chunk gets major+1 of the collection version, minor 0,
// shard to and a history entry; then one other chunk of the donor (the
// control chunk, when it has one) gets major+1, minor 1, so the donor's
// placement version moves too. MongoDB writes both in one transaction;
// here they are two compare-and-swap updates in place, each w:"majority",
// in that order, so versions are written in increasing order and a reader
// between the two sees every key range owned exactly once (the donor's
// version just not yet bumped). Moving only part of a chunk (moveRange's
// split on commit) is TODO(#14).
func (c *Catalog) CommitChunkMigration(ctx context.Context, ns string, migrated routing.Chunk, from, to string, collVersion routing.ChunkVersion) (MigrationVersions, error) {
	chunkOpLock.Lock()
	defer chunkOpLock.Unlock()
	if err := c.checkShard(ctx, to); err != nil {
		return MigrationVersions{}, err
	}
	coll, chunks, err := c.chunksOf(ctx, ns)
	if err != nil {
		return MigrationVersions{}, err
	}
	cur := maxVersion(coll, chunks)
	if cur.Epoch != collVersion.Epoch || cur.Timestamp != collVersion.Timestamp {
		return MigrationVersions{}, mongoerr.New(mongoerr.StaleEpoch,
			"The epoch of collection '%s' has changed since the migration began. The config server's collection placement version is now '%s', but the shard's is '%s'. Aborting migration commit for chunk %s",
			ns, cur, collVersion, migrated.Range())
	}
	if !migrated.Lastmod.IsSet() {
		return MigrationVersions{}, mongoerr.New(mongoerr.MigrationChunkNoVersion, "Config server rejecting commitChunkMigration request that does not have a ChunkVersion")
	}
	i := coveringChunk(chunks, migrated)
	if i < 0 {
		return MigrationVersions{}, mongoerr.New(mongoerr.MigrationChunkNotFound, "Could not find a chunk including bounds %s. Cannot execute the migration commit with invalid chunks.", migrated.Range())
	}
	current := chunks[i]
	if current.chunk.Shard == to {
		return MigrationVersions{Shard: placement(coll, chunks, from), Collection: cur}, nil
	}
	if current.chunk.Shard != from {
		return MigrationVersions{}, mongoerr.New(mongoerr.MigrationChunkOwnedByNeither, "Migrated chunk %s from ns: %s not owned by donor %s neither by recipient %s", migrated.Range(), ns, from, to)
	}
	if !migrated.Lastmod.SameCollection(current.chunk.Lastmod) || migrated.Lastmod.Less(current.chunk.Lastmod) {
		return MigrationVersions{}, mongoerr.New(mongoerr.ConflictingOperationInProgress,
			"Rejecting migration request because the version of the requested chunk %s(%s) is older than the version of the current chunk %s(%s) on shard %s",
			migrated.Range(), migrated.Lastmod, current.chunk.Range(), current.chunk.Lastmod, from)
	}
	if key.Compare(current.chunk.Min, migrated.Min) != 0 || key.Compare(current.chunk.Max, migrated.Max) != 0 {
		return MigrationVersions{}, mongoerr.New(mongoerr.IllegalOperation, "moving part %s of chunk %s is not supported yet", migrated.Range(), current.chunk.Range())
	}
	return c.applyMigration(ctx, coll, chunks, i, from, to, cur)
}

// applyMigration writes the migrated chunk (index i of chunks) and the
// control chunk; cur is the collection version they were derived from.
func (c *Catalog) applyMigration(ctx context.Context, coll routing.Collection, chunks []storedChunk, i int, from, to string, cur routing.ChunkVersion) (MigrationVersions, error) {
	moved := chunks[i]
	newVersion := cur.IncMajor()
	validAfter := bson.Timestamp{T: uint32(c.now().Unix()), I: 1}
	history := bson.A{bson.D{{Key: "validAfter", Value: validAfter}, {Key: "shard", Value: to}}}
	if old, ok := field[bson.A](moved.doc, "history"); ok {
		history = append(history, old[:min(len(old), maxChunkHistoryItems-1)]...)
	}
	n, err := c.casChunk(ctx, moved, bson.D{
		{Key: "shard", Value: to},
		{Key: "lastmod", Value: newVersion.Lastmod()},
		{Key: "onCurrentShardSince", Value: validAfter},
		{Key: "history", Value: history},
	})
	if err != nil {
		return MigrationVersions{}, err
	}
	if n != 1 {
		return MigrationVersions{}, mongoerr.New(mongoerr.ConflictingOperationInProgress,
			"chunk %s of %s changed while its migration was being committed", moved.chunk.Range(), coll.NS)
	}
	out := MigrationVersions{Shard: routing.ChunkVersion{Epoch: cur.Epoch, Timestamp: cur.Timestamp}, Collection: newVersion}
	for j, ch := range chunks {
		if j == i || ch.chunk.Shard != from {
			continue
		}
		control := newVersion.IncMinor()
		n, err := c.casChunk(ctx, ch, bson.D{{Key: "lastmod", Value: control.Lastmod()}})
		if err != nil {
			return MigrationVersions{}, err
		}
		if n == 1 {
			return MigrationVersions{Shard: control, Collection: control}, nil
		}
		// The control chunk changed meanwhile (a split, which moved the
		// donor's version itself): the migration stands; answer what the
		// config servers hold now.
		return c.currentVersions(ctx, coll, from)
	}
	return out, nil
}

// currentVersions reads shard's placement version and the collection
// version of coll.
func (c *Catalog) currentVersions(ctx context.Context, coll routing.Collection, shard string) (MigrationVersions, error) {
	chunks, err := c.storedChunks(ctx, coll)
	if err != nil {
		return MigrationVersions{}, err
	}
	return MigrationVersions{Shard: placement(coll, chunks, shard), Collection: maxVersion(coll, chunks)}, nil
}

// EnsureChunkVersionIsGreaterThan makes sure a commit carrying version
// for chunk [lo, hi) of the collection uuid can no longer succeed, as
// MongoDB's _configsvrEnsureChunkVersionIsGreaterThan: when such a chunk
// exists in version's collection generation and its version is not newer
// than version, its lastmod becomes the collection version's major+1,
// minor 0 (w:"majority"). A collection, chunk or generation not found
// (dropped, split, merged, migrated: each of which moved the version
// already) is success, and so is a chunk already newer.
func (c *Catalog) EnsureChunkVersionIsGreaterThan(ctx context.Context, uuid bson.Binary, lo, hi bson.D, version routing.ChunkVersion) error {
	chunkOpLock.Lock()
	defer chunkOpLock.Unlock()
	docs, err := c.find(ctx, CollectionsColl, bson.D{{Key: "uuid", Value: uuid}})
	if err != nil || len(docs) == 0 {
		return err
	}
	coll, err := ParseCollection(docs[0])
	if err != nil {
		return err
	}
	if coll.Epoch != version.Epoch || coll.Timestamp != version.Timestamp {
		return nil
	}
	chunks, err := c.storedChunks(ctx, coll)
	if err != nil {
		return err
	}
	for _, ch := range chunks {
		if key.Compare(ch.chunk.Min, lo) != 0 || key.Compare(ch.chunk.Max, hi) != 0 {
			continue
		}
		if version.Less(ch.chunk.Lastmod) {
			return nil
		}
		_, err := c.casChunk(ctx, ch, bson.D{{Key: "lastmod", Value: maxVersion(coll, chunks).IncMajor().Lastmod()}})
		return err
	}
	return nil
}

// ChunkOwner returns the shard owning the chunk of ns that contains key k
// (majority read).
func (c *Catalog) ChunkOwner(ctx context.Context, ns string, k bson.D) (string, error) {
	m, found, err := c.RoutingTable(ctx, ns)
	if err != nil {
		return "", err
	}
	if !found {
		return "", mongoerr.New(mongoerr.NamespaceNotFound, "%s is not sharded", ns)
	}
	ch, err := m.FindChunk(k)
	if err != nil {
		return "", err
	}
	return ch.Shard, nil
}

// storedChunk is a config.chunks document and its parsed chunk.
type storedChunk struct {
	doc   bson.D
	chunk routing.Chunk
}

// chunksOf reads ns's config.collections entry and chunks; ns not
// sharded is ConflictingOperationInProgress, no chunks
// IncompatibleShardingMetadata, as MongoDB answers a migration commit.
func (c *Catalog) chunksOf(ctx context.Context, ns string) (routing.Collection, []storedChunk, error) {
	coll, found, err := c.Collection(ctx, ns)
	if err != nil {
		return coll, nil, err
	}
	if !found {
		return coll, nil, mongoerr.New(mongoerr.ConflictingOperationInProgress, "Collection does not exist")
	}
	chunks, err := c.storedChunks(ctx, coll)
	if err == nil && len(chunks) == 0 {
		err = mongoerr.New(mongoerr.IncompatibleShardingMetadata, "Tried to find max chunk version for collection '%s', but found no chunks", ns)
	}
	return coll, chunks, err
}

func (c *Catalog) storedChunks(ctx context.Context, coll routing.Collection) ([]storedChunk, error) {
	docs, err := c.find(ctx, ChunksColl, bson.D{{Key: "uuid", Value: coll.UUID}})
	if err != nil {
		return nil, err
	}
	out := make([]storedChunk, 0, len(docs))
	for _, d := range docs {
		ch, err := ParseChunk(coll, d)
		if err != nil {
			return nil, err
		}
		out = append(out, storedChunk{doc: d, chunk: ch})
	}
	return out, nil
}

// checkShard answers ShardNotFound unless id is in config.shards.
func (c *Catalog) checkShard(ctx context.Context, id string) error {
	docs, err := c.find(ctx, ShardsColl, bson.D{{Key: "_id", Value: id}})
	if err == nil && len(docs) == 0 {
		err = mongoerr.New(mongoerr.ShardNotFound, "Shard %s does not exist", id)
	}
	return err
}

// casChunk sets fields of ch's document if it still has the _id, lastmod,
// shard, min and max read (w:"majority"); it returns how many matched.
func (c *Catalog) casChunk(ctx context.Context, ch storedChunk, set bson.D) (int64, error) {
	id, _ := bsonx.Get(ch.doc, "_id")
	reply, err := c.run.Run(ctx, DB, bson.D{
		{Key: "update", Value: ChunksColl},
		{Key: "updates", Value: bson.A{bson.D{
			{Key: "q", Value: bson.D{
				{Key: "_id", Value: id}, {Key: "lastmod", Value: ch.chunk.Lastmod.Lastmod()},
				{Key: "shard", Value: ch.chunk.Shard}, {Key: "min", Value: ch.chunk.Min}, {Key: "max", Value: ch.chunk.Max},
			}},
			{Key: "u", Value: bson.D{{Key: "$set", Value: set}}},
		}}},
		{Key: "writeConcern", Value: majority(ctx)},
	})
	if err == nil {
		err = WriteError(reply)
	}
	if err != nil {
		return 0, err
	}
	n, _ := bsonx.Get(reply, "n")
	return asInt(n), nil
}

// maxVersion is the collection version: the highest lastmod of chunks.
func maxVersion(coll routing.Collection, chunks []storedChunk) routing.ChunkVersion {
	v := routing.ChunkVersion{Epoch: coll.Epoch, Timestamp: coll.Timestamp}
	for _, ch := range chunks {
		if v.Less(ch.chunk.Lastmod) {
			v = ch.chunk.Lastmod
		}
	}
	return v
}

// placement is shard's placement version: its highest chunk version, 0|0
// when it owns none.
func placement(coll routing.Collection, chunks []storedChunk, shard string) routing.ChunkVersion {
	v := routing.ChunkVersion{Epoch: coll.Epoch, Timestamp: coll.Timestamp}
	for _, ch := range chunks {
		if ch.chunk.Shard == shard && v.Less(ch.chunk.Lastmod) {
			v = ch.chunk.Lastmod
		}
	}
	return v
}

// coveringChunk is the index of the chunk whose range covers r's, or -1.
func coveringChunk(chunks []storedChunk, r routing.Chunk) int {
	for i, ch := range chunks {
		if key.Compare(ch.chunk.Min, r.Min) <= 0 && key.Compare(r.Max, ch.chunk.Max) <= 0 && key.Compare(r.Min, r.Max) < 0 {
			return i
		}
	}
	return -1
}
