package router

import (
	"context"
	"slices"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/routing"
	"github.com/relaydb/relaydb/internal/shard/shardsvr"
)

// The router's side of sharded collections (docs/sharding.md, stage 2):
// a command on a collection the config servers list as sharded is sent to
// the shards its routing table targets, each with that shard's
// shardVersion, and the replies are combined here. A shard answering
// StaleConfig makes the router reload the routing table and resend (at
// most maxStaleRetries times).

// shardedCommands are the commands routed by a routing table.
var shardedCommands = map[string]func(r *Router, c *call, ns string, cm *routing.ChunkManager) (bson.D, error){
	"insert":        (*Router).shardedInsert,
	"update":        (*Router).shardedUpdate,
	"delete":        (*Router).shardedDelete,
	"find":          (*Router).shardedFind,
	"count":         (*Router).shardedCount,
	"distinct":      (*Router).shardedDistinct,
	"aggregate":     (*Router).shardedAggregate,
	"findAndModify": (*Router).shardedFindAndModify,
	"findandmodify": (*Router).shardedFindAndModify,
	"drop":          (*Router).shardedDrop,
	"createIndexes": (*Router).shardedBroadcast,
	"collMod":       (*Router).shardedCollMod, // collmod.go
	"dropIndexes":   (*Router).shardedBroadcast,
	"deleteIndexes": (*Router).shardedBroadcast,
}

// unversionedDDL are the routed commands sent to an unsharded collection's
// primary shard without a shard version: the router re-reads the
// collection's routing before deciding it is unsharded.
var unversionedDDL = map[string]bool{"drop": true, "createIndexes": true, "collMod": true, "dropIndexes": true, "deleteIndexes": true}

// routeSharded serves c when it is a command on a sharded collection;
// handled is false for everything else (forwarded to the primary shard).
func (r *Router) routeSharded(c *call) (reply bson.D, handled bool, err error) {
	switch c.name {
	case "renameCollection":
		if err := r.refuseShardedRename(c); err != nil {
			return nil, true, err
		}
		return nil, false, nil
	case "dropDatabase":
		if c.db == "admin" || c.db == "config" || c.db == "local" {
			return nil, false, nil
		}
		if err := r.dropShardedCollections(c); err != nil {
			return nil, true, err
		}
		return nil, false, nil
	}
	fn, ok := shardedCommands[c.name]
	if !ok || c.db == "admin" || c.db == "config" || c.db == "local" {
		return nil, false, nil
	}
	coll, ok := c.cmd[0].Value.(string)
	if !ok || coll == "" {
		return nil, false, nil
	}
	ns := c.db + "." + coll
	cm, err := r.catalog.get(c.ctx, ns)
	if err == nil && cm == nil && unversionedDDL[c.name] {
		// No shard version would tell a shard that this router's
		// "unsharded" is stale (the collection was sharded through another
		// router): DDL is rare, so read the config servers again.
		cm, err = r.catalog.refresh(c.ctx, ns, nil)
	}
	if err != nil {
		return nil, true, err
	}
	if cm == nil {
		if reply, handled, err := r.unshardedAggregate(c); handled { // aggmerge_unsharded.go
			return reply, true, err
		}
		if versionedUnsharded(c) {
			return r.forwardUnsharded(c, ns)
		}
		return nil, false, nil
	}
	if txnKey(c.cmd) != "" {
		return nil, true, mongoerr.New(mongoerr.OperationNotSupportedInTransaction,
			"transactions on sharded collections are not supported by the router yet (%s on %s)", c.name, ns)
	}
	reply, err = fn(r, c, ns, cm)
	if err != nil {
		return nil, true, err
	}
	if _, has := bsonx.Get(reply, "$clusterTime"); has { // a shard's reply passed through
		return reply, true, nil
	}
	return r.gossip(reply), true, nil
}

// withVersion returns cmd with shardVersion set to shard's placement
// version in cm (a copy; any shardVersion the client sent is replaced).
func withVersion(cmd bson.D, cm *routing.ChunkManager, shard string) bson.D {
	out := make(bson.D, 0, len(cmd)+1)
	for _, e := range cmd {
		if e.Key != "shardVersion" && e.Key != "databaseVersion" {
			out = append(out, e)
		}
	}
	return append(out, bson.E{Key: "shardVersion", Value: shardsvr.ShardVersionDoc(cm.PlacementVersion(shard))})
}

// setField returns cmd with key set to v (replaced or appended; a copy).
func setField(cmd bson.D, key string, v any) bson.D {
	out := make(bson.D, 0, len(cmd)+1)
	found := false
	for _, e := range cmd {
		if e.Key == key {
			found = true
			e.Value = v
		}
		out = append(out, e)
	}
	if !found {
		out = append(out, bson.E{Key: key, Value: v})
	}
	return out
}

// shardReply is one shard's answer.
type shardReply struct {
	shard string
	t     target
	host  string
	reply bson.D
	err   error
}

// send runs cmd (already versioned) on shard: reads may go to a
// secondary as the client's $readPreference asks.
func (r *Router) send(c *call, shard string, cmd bson.D, read bool) shardReply {
	s, err := r.shard(c.ctx, shard)
	if err != nil {
		return shardReply{shard: shard, err: err}
	}
	t := target{id: shard, set: s}
	var reply bson.D
	var host string
	if pref, ok := selectsMember(c); ok && read {
		reply, host, err = s.RunSelected(c.ctx, c.db, cmd, pref)
	} else {
		reply, host, err = s.RunOnPrimary(c.ctx, c.db, cmd, read || retryableWrite(cmd))
	}
	r.observeClusterTime(reply)
	return shardReply{shard: shard, t: t, host: host, reply: reply, err: err}
}

// sendAll runs build(shard) on every shard in parallel.
func (r *Router) sendAll(c *call, shards []string, read bool, build func(shard string) bson.D) []shardReply {
	out := make([]shardReply, len(shards))
	if len(shards) == 1 {
		out[0] = r.send(c, shards[0], build(shards[0]), read)
		return out
	}
	var wg sync.WaitGroup
	for i, s := range shards {
		cmd := build(s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = r.send(c, s, cmd, read)
		}()
	}
	wg.Wait()
	return out
}

// isStale reports a StaleConfig answer: the command's error or one of its
// write errors (the shard checks the version before writing anything).
func isStale(sr shardReply) bool {
	if mongoerr.Is(sr.err, mongoerr.StaleConfig) {
		return true
	}
	return staleWriteIndex(sr.reply) >= 0
}

// staleWriteIndex is the index of the first StaleConfig write error, -1
// if none.
func staleWriteIndex(reply bson.D) int { return writeErrorIndex(reply, mongoerr.StaleConfig) }

// writeErrorIndex is the index of the first write error with code, -1 if
// none.
func writeErrorIndex(reply bson.D, code mongoerr.Code) int {
	for _, we := range writeErrors(reply) {
		if errCode(we) == int64(code) {
			i, _ := bsonx.Get(we, "index")
			n, _ := bsonx.AsInt64(i)
			return int(n)
		}
	}
	return -1
}

func writeErrors(reply bson.D) []bson.D {
	v, _ := bsonx.Get(reply, "writeErrors")
	arr, _ := v.(bson.A)
	out := make([]bson.D, 0, len(arr))
	for _, e := range arr {
		if d, ok := e.(bson.D); ok {
			out = append(out, d)
		}
	}
	return out
}

func errCode(d bson.D) int64 {
	v, _ := bsonx.Get(d, "code")
	n, _ := bsonx.AsInt64(v)
	return n
}

func int64Field(d bson.D, name string) int64 {
	v, _ := bsonx.Get(d, name)
	n, _ := bsonx.AsInt64(v)
	return n
}

// refreshAfterStale reloads ns after a StaleConfig; attempt counts the
// retries so far. The collection no longer sharded (dropped meanwhile) is
// ConflictingOperationInProgress: the client may retry the whole request.
func (r *Router) refreshAfterStale(ctx context.Context, ns string, cm *routing.ChunkManager, attempt int) (*routing.ChunkManager, error) {
	if attempt >= maxStaleRetries {
		return nil, mongoerr.New(mongoerr.StaleConfig, "routing information for %s is still stale after %d refreshes", ns, maxStaleRetries)
	}
	next, err := r.catalog.refresh(ctx, ns, cm)
	if err != nil {
		return nil, err
	}
	if next == nil {
		return nil, mongoerr.New(mongoerr.ConflictingOperationInProgress, "collection %s was dropped or unsharded while the request ran", ns)
	}
	return next, nil
}

// shardedDrop drops the collection on every shard, then its metadata.
func (r *Router) shardedDrop(c *call, ns string, cm *routing.ChunkManager) (bson.D, error) {
	if err := c.useMetadataWriteConcern(); err != nil {
		return nil, err
	}
	ids, err := r.allShardIDs(c)
	if err != nil {
		return nil, err
	}
	if err := r.withCriticalSection(c, ns, ids, func() error { return r.dropEverywhere(c, ids, c.cmd, cm.Collection()) }); err != nil {
		return nil, err
	}
	r.catalog.invalidate(ns)
	r.refreshShards(c, ids, c.db, c.cmd[0].Value.(string), func(string) routing.ChunkVersion { return shardsvr.Unsharded })
	return bson.D{{Key: "ns", Value: ns}, {Key: "ok", Value: 1.0}}, nil
}

// dropEverywhere drops a sharded collection on the shards ids (drop is
// the command) and then removes its metadata.
func (r *Router) dropEverywhere(c *call, ids []string, drop bson.D, coll routing.Collection) error {
	for _, sr := range r.sendAll(c, ids, false, func(string) bson.D { return drop }) {
		if sr.err != nil && !mongoerr.Is(sr.err, mongoerr.NamespaceNotFound) {
			return sr.err
		}
	}
	return r.meta.DropShardedCollection(c.ctx, coll)
}

// shardedBroadcast sends an index command to every shard (a shard that
// owns no chunk yet must have the index when one arrives) and returns the
// primary shard's reply; the first error wins.
func (r *Router) shardedBroadcast(c *call, ns string, cm *routing.ChunkManager) (bson.D, error) {
	ids, err := r.allShardIDs(c)
	if err != nil {
		return nil, err
	}
	db, _, err := r.database(c.ctx, c.db, false)
	if err != nil {
		return nil, err
	}
	var primary bson.D
	for _, sr := range r.sendAll(c, ids, false, func(string) bson.D { return c.cmd }) {
		if sr.err != nil {
			return nil, sr.err
		}
		if sr.shard == db.Primary || primary == nil {
			primary = sr.reply
		}
	}
	return primary, nil
}

func (r *Router) allShardIDs(c *call) ([]string, error) {
	all, err := r.allShards(c.ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(all))
	for id := range all {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids, nil
}

// versionedUnsharded reports a command on an unsharded collection that is
// sent with shardVersion UNSHARDED and the database's databaseVersion,
// as mongos does, so that a shard tells a router whose cache is stale
// (StaleConfig: the collection was sharded through another router;
// StaleDbVersion: the database moved or was dropped and made again).
// Statements of transactions and reads sent to secondaries go unversioned
// as before.
func versionedUnsharded(c *call) bool {
	switch c.name {
	case "insert", "update", "delete", "find", "count", "distinct", "findAndModify", "findandmodify":
	case "aggregate":
		if writesOut(c.cmd) || truthy(c.cmd, "explain") {
			return false
		}
	default:
		return false
	}
	_, selects := selectsMember(c)
	return txnKey(c.cmd) == "" && !selects
}

// forwardUnsharded sends c to its database's primary shard with UNSHARDED
// and the database version, refreshing and resending (at most
// maxStaleRetries times) when the shard says the router is stale; a
// collection found sharded meanwhile is routed as one. handled is false
// for a read of a database that does not exist (forward answers it).
func (r *Router) forwardUnsharded(c *call, ns string) (bson.D, bool, error) {
	for attempt := 0; ; attempt++ {
		d, found, err := r.database(c.ctx, c.db, !readOnly(c))
		if err != nil {
			return nil, true, err
		}
		if !found {
			return nil, false, nil
		}
		s, err := r.shard(c.ctx, d.Primary)
		if err != nil {
			return nil, true, err
		}
		t := target{id: d.Primary, set: s}
		cmd := append(withoutField(withoutField(c.cmd, "shardVersion"), "databaseVersion"),
			bson.E{Key: "shardVersion", Value: shardsvr.ShardVersionDoc(shardsvr.Unsharded)},
			bson.E{Key: "databaseVersion", Value: d.Version.Doc()})
		reply, host, err := s.RunOnPrimary(c.ctx, c.db, cmd, idempotent(c))
		if reply == nil {
			return nil, true, labelRetryable(c.cmd, err)
		}
		staleColl := mongoerr.Is(err, mongoerr.StaleConfig) || (err == nil && staleWriteIndex(reply) >= 0)
		staleDB := mongoerr.Is(err, mongoerr.StaleDbVersion) || (err == nil && writeErrorIndex(reply, mongoerr.StaleDbVersion) >= 0)
		if (staleColl || staleDB) && attempt < maxStaleRetries {
			r.observeClusterTime(reply)
			if staleDB {
				r.mu.Lock()
				delete(r.mu.dbs, c.db)
				r.mu.Unlock()
				continue
			}
			cm, err := r.catalog.refresh(c.ctx, ns, nil)
			if err != nil {
				return nil, true, err
			}
			if cm != nil {
				reply, err := shardedCommands[c.name](r, c, ns, cm)
				if err != nil {
					return nil, true, err
				}
				if _, has := bsonx.Get(reply, "$clusterTime"); !has {
					reply = r.gossip(reply)
				}
				return reply, true, nil
			}
			continue
		}
		r.cursors.addFrom(reply, t, host)
		return reply, true, nil
	}
}

// refreshShards makes every shard in ids reload coll's filtering metadata
// after the router changed it (shardCollection, drop): a versioned read
// carrying the new version (which a shard's cached one differs from)
// makes the shard refresh from the config servers, as MongoDB's shards
// refresh at the end of those commands. Otherwise a shard would keep
// serving a router whose cache is as old as its own. Failures are only
// logged: a shard refreshes anyway on the next mismatch it sees.
func (r *Router) refreshShards(c *call, ids []string, db, coll string, version func(shard string) routing.ChunkVersion) {
	for _, sr := range r.sendAll(c, ids, false, func(s string) bson.D {
		return bson.D{{Key: "find", Value: coll}, {Key: "filter", Value: bson.D{}}, {Key: "limit", Value: int32(1)},
			{Key: "singleBatch", Value: true}, {Key: "shardVersion", Value: shardsvr.ShardVersionDoc(version(s))}}
	}) {
		if sr.err != nil {
			r.log.Warn("shard did not refresh its filtering metadata", "shard", sr.shard, "ns", db+"."+coll, "err", sr.err)
		}
	}
}

// refuseShardedRename refuses renameCollection from or onto a sharded
// collection: forwarded to the primary shard it would rename only the
// primary's part and leave the routing table behind (MongoDB 7.0 renames
// sharded collections with the config servers: not done yet).
func (r *Router) refuseShardedRename(c *call) error {
	from, _ := c.cmd[0].Value.(string)
	to, _ := bsonx.Get(c.cmd, "to")
	toNS, _ := to.(string)
	for _, ns := range []string{from, toNS} {
		if ns == "" {
			continue
		}
		cm, err := r.catalog.get(c.ctx, ns)
		if err != nil {
			return err
		}
		if cm != nil {
			return mongoerr.New(mongoerr.IllegalOperation, "renaming the sharded collection %s is not supported by the router yet", ns)
		}
	}
	return nil
}

// dropShardedCollections drops the database's sharded collections on
// every shard and removes their metadata before dropDatabase is forwarded
// to the primary shard (which holds everything else).
func (r *Router) dropShardedCollections(c *call) error {
	if err := c.useMetadataWriteConcern(); err != nil {
		return err
	}
	colls, err := r.meta.ShardedCollections(c.ctx, c.db)
	if err != nil || len(colls) == 0 {
		return err
	}
	ids, err := r.allShardIDs(c)
	if err != nil {
		return err
	}
	for _, coll := range colls {
		name := coll.NS[len(c.db)+1:]
		drop := bson.D{{Key: "drop", Value: name}}
		if wc, ok := bsonx.Get(c.cmd, "writeConcern"); ok {
			drop = append(drop, bson.E{Key: "writeConcern", Value: wc})
		}
		if err := r.withCriticalSection(c, coll.NS, ids, func() error { return r.dropEverywhere(c, ids, drop, coll) }); err != nil {
			return err
		}
		r.catalog.invalidate(coll.NS)
		r.refreshShards(c, ids, c.db, name, func(string) routing.ChunkVersion { return shardsvr.Unsharded })
	}
	return nil
}
