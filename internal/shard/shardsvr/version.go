package shardsvr

import (
	"bytes"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// Unsharded is MongoDB's ChunkVersion::UNSHARDED(): the shard version a
// router sends for a collection it believes unsharded, and the one a
// shard wants for a collection it believes unsharded:
// {e: ObjectId("000000000000000000000000"), t: Timestamp(0, 0), v: Timestamp(0, 0)}.
var Unsharded = routing.ChunkVersion{}

// Ignored is MongoDB's ChunkVersion::IGNORED(): epoch of zero time and
// maximal machine id and counter (00000000ffffffffffffffff), timestamp
// Timestamp::max(), 0|0. A router's broadcast writes carry it and the
// shard skips the placement check.
var Ignored = routing.ChunkVersion{
	Epoch:     bson.ObjectID{0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
	Timestamp: bson.Timestamp{T: ^uint32(0), I: ^uint32(0)},
}

// isIgnored is MongoDB's ChunkVersion::isIgnoredVersion: 0|0 with the
// IGNORED epoch (the timestamp is not compared).
func isIgnored(v routing.ChunkVersion) bool {
	return v.Epoch == Ignored.Epoch && !v.IsSet()
}

// ShardVersionDoc renders v as a request's shardVersion (and StaleConfig's
// vReceived/vWanted) in MongoDB 7.0's format: {e: epoch, t: timestamp,
// v: Timestamp(major, minor)}.
func ShardVersionDoc(v routing.ChunkVersion) bson.D {
	return bson.D{{Key: "e", Value: v.Epoch}, {Key: "t", Value: v.Timestamp}, {Key: "v", Value: v.Lastmod()}}
}

// ParseShardVersion reads a request's shardVersion: MongoDB 7.0's
// {e, t, v} (other fields, such as the index version i, are ignored) or
// the older array [Timestamp(major, minor), epoch] (5.0-6.x add the
// timestamp as a third element; without it the timestamp is 0).
func ParseShardVersion(v any) (routing.ChunkVersion, error) {
	switch x := v.(type) {
	case bson.D:
		return parseVersionDoc(x)
	case bson.A:
		return parseVersionArray(x)
	}
	return routing.ChunkVersion{}, mongoerr.New(mongoerr.TypeMismatch, "shardVersion must be an object, not %T", v)
}

func parseVersionDoc(d bson.D) (routing.ChunkVersion, error) {
	e, okE := get[bson.ObjectID](d, "e")
	t, okT := get[bson.Timestamp](d, "t")
	p, okV := get[bson.Timestamp](d, "v")
	if !okE || !okT || !okV {
		return routing.ChunkVersion{}, mongoerr.New(mongoerr.TypeMismatch,
			"shardVersion needs e (objectId), t (timestamp) and v (timestamp): %v", d)
	}
	return routing.VersionFromLastmod(e, t, p), nil
}

func parseVersionArray(a bson.A) (routing.ChunkVersion, error) {
	if len(a) < 2 || len(a) > 3 {
		return routing.ChunkVersion{}, mongoerr.New(mongoerr.BadValue, "Unexpected shardVersion array %v", a)
	}
	p, okV := a[0].(bson.Timestamp)
	e, okE := a[1].(bson.ObjectID)
	var t bson.Timestamp
	okT := true
	if len(a) == 3 {
		t, okT = a[2].(bson.Timestamp)
	}
	if !okV || !okE || !okT {
		return routing.ChunkVersion{}, mongoerr.New(mongoerr.TypeMismatch, "Invalid shardVersion array %v", a)
	}
	return routing.VersionFromLastmod(e, t, p), nil
}

// ParseDatabaseVersion reads a request's databaseVersion {uuid, timestamp, lastMod}.
func ParseDatabaseVersion(v any) (configsvr.DatabaseVersion, error) {
	d, ok := v.(bson.D)
	if !ok {
		return configsvr.DatabaseVersion{}, mongoerr.New(mongoerr.TypeMismatch, "databaseVersion must be an object, not %T", v)
	}
	var dv configsvr.DatabaseVersion
	var okU, okT bool
	dv.UUID, okU = get[bson.Binary](d, "uuid")
	dv.Timestamp, okT = get[bson.Timestamp](d, "timestamp")
	lm, _ := bsonx.Get(d, "lastMod")
	n, okL := bsonx.AsInt64(lm)
	if !okU || !okT || !okL {
		return configsvr.DatabaseVersion{}, mongoerr.New(mongoerr.TypeMismatch,
			"databaseVersion needs uuid, timestamp and lastMod: %v", d)
	}
	dv.LastMod = int32(n)
	return dv, nil
}

// compatible is MongoDB's ChunkVersion::isWriteCompatibleWith: the same
// collection generation and the same major version. A minor difference
// (a split or merge) does not change which documents the shard owns, so
// the request is served.
func compatible(wanted, received routing.ChunkVersion) bool {
	return wanted.SameCollection(received) && wanted.Major == received.Major
}

// sameDatabaseVersion compares database versions as MongoDB's
// DatabaseVersion equality: uuid, timestamp and lastMod.
func sameDatabaseVersion(a, b configsvr.DatabaseVersion) bool {
	return bytes.Equal(a.UUID.Data, b.UUID.Data) && a.Timestamp == b.Timestamp && a.LastMod == b.LastMod
}

func get[T any](d bson.D, name string) (T, bool) {
	v, _ := bsonx.Get(d, name)
	t, ok := v.(T)
	return t, ok
}
