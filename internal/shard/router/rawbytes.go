package router

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
	"github.com/relaydb/relaydb/internal/shard/routing"
	"github.com/relaydb/relaydb/internal/shard/shardsvr"
)

// rawErrCode is the code of an ok:0 reply, 0 for a successful one.
func rawErrCode(reply bson.Raw) mongoerr.Code {
	if rawOK(reply) {
		return mongoerr.OK
	}
	n, ok := reply.Lookup("code").AsInt64OK()
	if !ok {
		return mongoerr.UnknownError
	}
	return mongoerr.Code(n)
}

func rawOK(reply bson.Raw) bool {
	v := reply.Lookup("ok")
	if b, isBool := v.BooleanOK(); isBool {
		return b
	}
	n, _ := v.AsFloat64OK()
	return n == 1
}

// rawWriteError reports a write error with code among a write reply's
// writeErrors.
func rawWriteError(reply bson.Raw, code mongoerr.Code) bool {
	arr, ok := reply.Lookup("writeErrors").ArrayOK()
	if !ok {
		return false
	}
	vals, err := arr.Values()
	if err != nil {
		return false
	}
	for _, v := range vals {
		we, ok := v.DocumentOK()
		if !ok {
			continue
		}
		if n, _ := we.Lookup("code").AsInt64OK(); n == int64(code) {
			return true
		}
	}
	return false
}

// dbVersionElems caches the encoded version fields of a database.
type dbVersionElems struct {
	v     configsvr.DatabaseVersion
	elems []byte
}

// unshardedVersionElems encodes shardVersion UNSHARDED and v as
// databaseVersion, as forwardUnsharded adds them (cached per database).
func (r *Router) unshardedVersionElems(db string, v configsvr.DatabaseVersion) ([]byte, error) {
	if e, ok := r.rawVersions.Load(db); ok {
		if c, isDB := e.(*dbVersionElems); isDB && sameDBVersion(c.v, v) {
			return c.elems, nil
		}
	}
	elems, err := encodeElems(bson.D{
		{Key: "shardVersion", Value: shardsvr.ShardVersionDoc(shardsvr.Unsharded)},
		{Key: "databaseVersion", Value: v.Doc()},
	})
	if err != nil {
		return nil, err
	}
	r.rawVersions.Store(db, &dbVersionElems{v: v, elems: elems})
	return elems, nil
}

func sameDBVersion(a, b configsvr.DatabaseVersion) bool {
	return a.Timestamp == b.Timestamp && a.LastMod == b.LastMod &&
		a.UUID.Subtype == b.UUID.Subtype && bytes.Equal(a.UUID.Data, b.UUID.Data)
}

// collVersionElems caches the encoded shardVersion fields of one routing
// table, per shard (the map is replaced, never changed, once stored).
type collVersionElems struct {
	cm      *routing.ChunkManager
	byShard map[string][]byte
}

// shardVersionElems encodes shard's placement version in cm as
// shardVersion, as withVersion sets it (cached per namespace and table).
func (r *Router) shardVersionElems(ns string, cm *routing.ChunkManager, shard string) ([]byte, error) {
	var old map[string][]byte
	if e, ok := r.rawVersions.Load(ns); ok {
		if c, isColl := e.(*collVersionElems); isColl && c.cm == cm {
			if elems, ok := c.byShard[shard]; ok {
				return elems, nil
			}
			old = c.byShard
		}
	}
	elems, err := encodeElems(bson.D{{Key: "shardVersion", Value: shardsvr.ShardVersionDoc(cm.PlacementVersion(shard))}})
	if err != nil {
		return nil, err
	}
	byShard := make(map[string][]byte, len(old)+1)
	for k, v := range old {
		byShard[k] = v
	}
	byShard[shard] = elems
	r.rawVersions.Store(ns, &collVersionElems{cm: cm, byShard: byShard})
	return elems, nil
}

// encodeElems returns d's elements as BSON bytes (no length, no NUL).
func encodeElems(d bson.D) ([]byte, error) {
	b, err := bsonx.Encode(d)
	if err != nil {
		return nil, fmt.Errorf("encoding %v: %w", d, err)
	}
	return b[4 : len(b)-1], nil
}

// bodyBufs are reusable buffers for forwarded bodies (the pool's
// connection copies a body into its own buffer before RunMsg returns);
// maxPooledBody keeps large inserts' buffers out of the pool.
var bodyBufs = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledBody = 64 << 10

// appendElems appends doc with elems (encoded elements) added at its end
// to dst.
func appendElems(dst, doc, elems []byte) []byte {
	at := len(dst)
	dst = append(dst, doc[:len(doc)-1]...)
	dst = append(append(dst, elems...), 0)
	binary.LittleEndian.PutUint32(dst[at:], uint32(len(dst)-at))
	return dst
}
