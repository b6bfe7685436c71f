package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// A write on a sharded collection is parsed by the router before it is
// split, as mongos parses it with the data nodes' IDL definitions: a
// request a data node would refuse as a whole (an unknown field such as an
// update statement's sort before MongoDB 8.0, a wrong type, a missing
// field) is refused as a whole, with the data node's error, rather than
// becoming per-statement write errors of the pieces, or being changed by
// the two-phase write (which would read and strip the sort).

// writeRequests are the request definitions of the sharded writes.
var writeRequests = map[string]func() any{
	"insert":        func() any { return new(request.Insert) },
	"update":        func() any { return new(request.Update) },
	"delete":        func() any { return new(request.Delete) },
	"findAndModify": func() any { return new(request.FindAndModify) },
	"findandmodify": func() any { return new(request.FindAndModify) },
}

// parseWrite returns the data node's parse error for a sharded write, nil
// when it parses (or is not a write).
func parseWrite(c *call) error {
	mk, ok := writeRequests[c.name]
	if !ok {
		return nil
	}
	return cmdspec.Decode(c.cmd, mk())
}

// upsertShardKey is the shard key an upsert's filter pins, as MongoDB's
// extractShardKeyFromQuery finds it: routing.ShardKeyFromFilter, where a
// key field compared for equality with null at the top level ({f: null},
// {f: {$eq: null}}) counts as pinned to null. ShardKeyFromFilter does not
// take such a field as pinned because the equality also matches the
// deprecated undefined, whose documents may live elsewhere; an upsert
// places its new document by null, as MongoDB does (and, as on MongoDB, an
// existing document whose key is undefined on another shard is not
// updated by it).
func upsertShardKey(p key.Pattern, filter bson.D) (bson.D, bool) {
	if k, ok := routing.ShardKeyFromFilter(p, filter); ok {
		return k, true
	}
	doc := p.Doc()
	k := make(bson.D, p.Len())
	for i, f := range p.Fields() {
		if nullEquality(filter, f.Path) {
			v, err := nullKeyValue(f.Hashed)
			if err != nil {
				return nil, false
			}
			k[i] = bson.E{Key: f.Path, Value: v}
			continue
		}
		one, err := key.Parse(bson.D{doc[i]})
		if err != nil {
			return nil, false
		}
		v, ok := routing.ShardKeyFromFilter(one, filter)
		if !ok {
			return nil, false
		}
		k[i] = v[0]
	}
	return k, true
}

func nullKeyValue(hashed bool) (any, error) {
	if !hashed {
		return nil, nil
	}
	return key.Hash(nil)
}

// nullEquality reports a top-level {path: null} or {path: {$eq: null}}.
func nullEquality(filter bson.D, path string) bool {
	for _, e := range filter {
		if e.Key != path {
			continue
		}
		if e.Value == nil {
			return true
		}
		switch v := e.Value.(type) {
		case bson.Null:
			return true
		case bson.D:
			if len(v) == 1 && v[0].Key == "$eq" {
				_, isNull := v[0].Value.(bson.Null)
				return v[0].Value == nil || isNull
			}
		}
	}
	return false
}

// upsertTarget is the shard an upsert statement's filter pins (ok false
// when it pins none).
func upsertTarget(cm *routing.ChunkManager, filter bson.D) (string, bool, error) {
	k, ok := upsertShardKey(cm.Pattern(), filter)
	if !ok {
		return "", false, nil
	}
	ch, err := cm.FindChunk(k)
	if err != nil {
		return "", true, err
	}
	return ch.Shard, true, nil
}
