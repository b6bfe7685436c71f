package configsvr

import (
	"crypto/rand"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// Names of the routing metadata collections.
const (
	CollectionsColl = "collections"
	ChunksColl      = "chunks"
)

// NewCollection returns the metadata of a collection being sharded now:
// a fresh epoch, a random UUID v4 and timestamp now (MongoDB takes the
// config server's cluster time; any strictly newer value orders
// generations the same way).
func NewCollection(ns string, pattern key.Pattern, unique bool, now time.Time) routing.Collection {
	return routing.Collection{
		NS: ns, Key: pattern, Unique: unique, UUID: newUUID(),
		Epoch:     bson.NewObjectIDFromTimestamp(now),
		Timestamp: bson.Timestamp{T: uint32(now.Unix()), I: 1},
	}
}

func newUUID() bson.Binary {
	u := make([]byte, 16)
	_, _ = rand.Read(u)
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return bson.Binary{Subtype: bson.TypeBinaryUUID, Data: u}
}

// CollectionDoc is c's config.collections document as MongoDB 7.0 keeps it:
// {_id: "db.coll", lastmodEpoch, lastmod: Date, timestamp, uuid, key,
// unique, noBalance}. lastmod is the wall time of the last change.
func CollectionDoc(c routing.Collection, lastmod time.Time, noBalance bool) bson.D {
	return bson.D{
		{Key: "_id", Value: c.NS},
		{Key: "lastmodEpoch", Value: c.Epoch},
		{Key: "lastmod", Value: bson.NewDateTimeFromTime(lastmod)},
		{Key: "timestamp", Value: c.Timestamp},
		{Key: "uuid", Value: c.UUID},
		{Key: "key", Value: c.Key.Doc()},
		{Key: "unique", Value: c.Unique},
		{Key: "noBalance", Value: noBalance},
	}
}

// ParseCollection reads a config.collections document. Fields relaydb
// does not use (lastmod, noBalance, maxChunkSizeBytes, ...) are ignored.
func ParseCollection(d bson.D) (routing.Collection, error) {
	var c routing.Collection
	var ok bool
	if c.NS, ok = field[string](d, "_id"); !ok || c.NS == "" {
		return c, malformed(CollectionsColl, d, "_id")
	}
	if c.Epoch, ok = field[bson.ObjectID](d, "lastmodEpoch"); !ok {
		return c, malformed(CollectionsColl, d, "lastmodEpoch")
	}
	if c.Timestamp, ok = field[bson.Timestamp](d, "timestamp"); !ok {
		return c, malformed(CollectionsColl, d, "timestamp")
	}
	if c.UUID, ok = field[bson.Binary](d, "uuid"); !ok || c.UUID.Subtype != bson.TypeBinaryUUID {
		return c, malformed(CollectionsColl, d, "uuid")
	}
	kd, ok := field[bson.D](d, "key")
	if !ok {
		return c, malformed(CollectionsColl, d, "key")
	}
	p, err := key.Parse(kd)
	if err != nil {
		return c, fmt.Errorf("configsvr: config.collections %s: key: %w", c.NS, err)
	}
	c.Key = p
	c.Unique, _ = field[bool](d, "unique")
	return c, nil
}

// ChunkDoc is chunk c of coll as config.chunks keeps it in MongoDB 7.0:
// {_id: ObjectId, uuid, min, max, shard, lastmod: Timestamp(major, minor),
// onCurrentShardSince, history: [{validAfter, shard}]}. since is when
// the chunk arrived on its shard (the collection's timestamp for the
// initial chunks).
func ChunkDoc(coll routing.Collection, id bson.ObjectID, c routing.Chunk, since bson.Timestamp) bson.D {
	return bson.D{
		{Key: "_id", Value: id},
		{Key: "uuid", Value: coll.UUID},
		{Key: "min", Value: c.Min},
		{Key: "max", Value: c.Max},
		{Key: "shard", Value: c.Shard},
		{Key: "lastmod", Value: c.Lastmod.Lastmod()},
		{Key: "onCurrentShardSince", Value: since},
		{Key: "history", Value: bson.A{bson.D{{Key: "validAfter", Value: since}, {Key: "shard", Value: c.Shard}}}},
	}
}

// ParseChunk reads a config.chunks document of coll; the chunk's version
// takes coll's epoch and timestamp (config.chunks stores only major.minor).
func ParseChunk(coll routing.Collection, d bson.D) (routing.Chunk, error) {
	var c routing.Chunk
	var ok bool
	if u, _ := field[bson.Binary](d, "uuid"); string(u.Data) != string(coll.UUID.Data) {
		return c, malformed(ChunksColl, d, "uuid")
	}
	if c.Min, ok = field[bson.D](d, "min"); !ok {
		return c, malformed(ChunksColl, d, "min")
	}
	if c.Max, ok = field[bson.D](d, "max"); !ok {
		return c, malformed(ChunksColl, d, "max")
	}
	if c.Shard, ok = field[string](d, "shard"); !ok || c.Shard == "" {
		return c, malformed(ChunksColl, d, "shard")
	}
	lastmod, ok := field[bson.Timestamp](d, "lastmod")
	if !ok {
		return c, malformed(ChunksColl, d, "lastmod")
	}
	c.Lastmod = routing.VersionFromLastmod(coll.Epoch, coll.Timestamp, lastmod)
	return c, nil
}

// field returns d's top-level field name as a T.
func field[T any](d bson.D, name string) (T, bool) {
	v, _ := bsonx.Get(d, name)
	t, ok := v.(T)
	return t, ok
}

func malformed(coll string, d bson.D, name string) error {
	return fmt.Errorf("configsvr: malformed config.%s document (%s): %v", coll, name, d)
}
