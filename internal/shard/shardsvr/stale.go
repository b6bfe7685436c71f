package shardsvr

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// Codes the shard version check answers with.
const (
	StaleConfig                 = mongoerr.StaleConfig                 // 13388
	StaleDbVersion              = mongoerr.StaleDbVersion              // 249
	ShardingStateNotInitialized = mongoerr.ShardingStateNotInitialized // 203
)

// Error is a client-visible error with MongoDB's ErrorExtraInfo: the
// fields a command's error reply (and a write error) carries beside code
// and errmsg. errors.As finds its *mongoerr.Error.
type Error struct {
	err  *mongoerr.Error
	info bson.D
}

func (e *Error) Error() string { return e.err.Error() }

// Unwrap returns the coded error.
func (e *Error) Unwrap() error { return e.err }

// ExtraInfo returns the fields MongoDB serializes inline after codeName.
func (e *Error) ExtraInfo() bson.D { return e.info }

// staleConfig is StaleConfig with MongoDB's StaleConfigInfo: {ns,
// vReceived, vWanted, shardId}; vWanted is left out when the shard does
// not know its version.
func staleConfig(ns string, received routing.ChunkVersion, wanted *routing.ChunkVersion, shardID string) *Error {
	info := bson.D{{Key: "ns", Value: ns}, {Key: "vReceived", Value: ShardVersionDoc(received)}}
	if wanted != nil {
		info = append(info, bson.E{Key: "vWanted", Value: ShardVersionDoc(*wanted)})
	}
	info = append(info, bson.E{Key: "shardId", Value: shardID})
	return &Error{err: mongoerr.New(StaleConfig, "%s", staleMessage(ns, received, wanted)), info: info}
}

// staleMessage is the errmsg MongoDB 7.0's CollectionShardingRuntime gives
// for each way received can differ from wanted, checked in its order.
func staleMessage(ns string, received routing.ChunkVersion, wanted *routing.ChunkVersion) string {
	switch {
	case wanted == nil:
		return "sharding status of collection " + ns + " is not currently known and needs to be recovered"
	case !wanted.SameCollection(received):
		return "timestamp mismatch detected for " + ns
	case !wanted.IsSet() && received.IsSet():
		return "this shard no longer contains chunks for " + ns + ", the collection may have been dropped"
	case wanted.IsSet() && !received.IsSet():
		return "this shard contains chunks for " + ns + ", but the client expects unsharded collection"
	}
	return "placement version mismatch detected for " + ns
}

// staleDB is StaleDbVersion with MongoDB's StaleDbRoutingVersion: {db,
// vReceived, vWanted}; vWanted is left out when this shard is not the
// database's primary (it knows no version of it).
func staleDB(db string, received configsvr.DatabaseVersion, wanted *configsvr.DatabaseVersion) *Error {
	info := bson.D{{Key: "db", Value: db}, {Key: "vReceived", Value: received.Doc()}}
	if wanted != nil {
		info = append(info, bson.E{Key: "vWanted", Value: wanted.Doc()})
	}
	return &Error{err: mongoerr.New(StaleDbVersion, "Version mismatch for the database %s", db), info: info}
}

func notInitialized() error {
	return mongoerr.New(ShardingStateNotInitialized,
		"Cannot accept sharding commands if sharding state has not been initialized with a shardIdentity document")
}

// StaleConfigInfo is MongoDB's StaleConfigInfo as a router reads it from a
// shard's StaleConfig reply or write error.
type StaleConfigInfo struct {
	NS       string
	Received routing.ChunkVersion
	Wanted   *routing.ChunkVersion // nil when the shard did not know its version
	ShardID  string
}

// ParseStaleConfigInfo reads the StaleConfigInfo fields of an error reply
// or of one writeErrors entry; ok is false when they are missing or
// malformed.
func ParseStaleConfigInfo(d bson.D) (info StaleConfigInfo, ok bool) {
	info.NS, _ = get[string](d, "ns")
	info.ShardID, _ = get[string](d, "shardId")
	rv, hasR := get[bson.D](d, "vReceived")
	if info.NS == "" || info.ShardID == "" || !hasR {
		return StaleConfigInfo{}, false
	}
	var err error
	if info.Received, err = ParseShardVersion(rv); err != nil {
		return StaleConfigInfo{}, false
	}
	if wv, hasW := get[bson.D](d, "vWanted"); hasW {
		w, err := ParseShardVersion(wv)
		if err != nil {
			return StaleConfigInfo{}, false
		}
		info.Wanted = &w
	}
	return info, true
}
