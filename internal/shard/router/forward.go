package router

import (
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// configShard is the target id of the config servers (admin and config
// live there, as on MongoDB's "config" shard).
const configShard = "config"

// target is where a command goes.
type target struct {
	id  string // shard _id, or configShard
	set *replSet
}

// forward sends c to its target and returns the reply unchanged (an ok:0
// reply too); it answers itself only when there is no reply to return.
func (r *Router) forward(c *call) (bson.D, error) {
	if notForwarded(c.name) {
		return nil, mongoerr.New(mongoerr.CommandNotFound, "no such command: '%s'", c.name)
	}
	if err := checkReadPref(c.cmd); err != nil { // readpref.go
		return nil, err
	}
	switch c.name {
	case "getMore":
		return r.getMore(c)
	case "killCursors":
		return r.killCursors(c)
	case "commitTransaction", "abortTransaction":
		return r.endTransaction(c)
	}
	if reply, handled, err := r.routeCollStats(c); handled { // collstats.go
		return reply, err
	}
	if reply, handled, err := r.routeChangeStream(c); handled { // changestream.go
		return reply, err
	}
	if reply, handled, err := r.routeSharded(c); handled {
		return reply, err
	}
	t, err := r.targetOf(c)
	if err != nil {
		return nil, err
	}
	if err := r.txns.check(c.cmd, t.id); err != nil {
		return nil, err
	}
	var reply bson.D
	var host string
	if pref, ok := selectsMember(c); ok {
		reply, host, err = t.set.RunSelected(c.ctx, c.db, c.cmd, pref)
	} else {
		reply, host, err = t.set.RunOnPrimary(c.ctx, c.db, c.cmd, idempotent(c))
	}
	if reply == nil {
		return nil, labelRetryable(c.cmd, err)
	}
	r.cursors.addFrom(reply, t, host)
	r.txns.record(c.cmd, t)
	if err == nil && c.name == "dropDatabase" && t.id != configShard {
		r.forgetDatabase(c)
	}
	return reply, nil
}

// targetOf picks the shard of c's database: the config servers for admin
// and config, the primary shard for any other (creating the database's
// entry when c may create the database).
func (r *Router) targetOf(c *call) (target, error) {
	db := c.db
	if c.name == "renameCollection" { // runs on admin, names "db.coll"
		from, _ := c.cmd[0].Value.(string)
		to, _ := bsonx.Get(c.cmd, "to")
		toNS, _ := to.(string)
		db, _, _ = strings.Cut(from, ".")
		if toDB, _, _ := strings.Cut(toNS, "."); toDB != db {
			if err := r.sameShard(c, db, toDB); err != nil {
				return target{}, err
			}
		}
	}
	switch db {
	case "admin", "config":
		return target{id: configShard, set: r.cfg}, nil
	case "local":
		return target{}, mongoerr.New(mongoerr.IllegalOperation, "can't use 'local' database through mongos")
	}
	d, found, err := r.database(c.ctx, db, !readOnly(c))
	if err != nil {
		return target{}, err
	}
	if !found { // a read of a database that does not exist: any shard answers "empty"
		return r.anyShard(c)
	}
	s, err := r.shard(c.ctx, d.Primary)
	if err != nil {
		return target{}, err
	}
	return target{id: d.Primary, set: s}, nil
}

// sameShard refuses a rename across databases on different shards.
func (r *Router) sameShard(c *call, a, b string) error {
	da, _, err := r.database(c.ctx, a, false)
	if err != nil {
		return err
	}
	db, found, err := r.database(c.ctx, b, true)
	if err != nil {
		return err
	}
	if found && db.Primary != da.Primary {
		return mongoerr.New(mongoerr.IllegalOperation, "cannot rename across databases on different primary shards (%s on %s, %s on %s)", a, da.Primary, b, db.Primary)
	}
	return nil
}

func (r *Router) anyShard(c *call) (target, error) {
	all, err := r.allShards(c.ctx)
	if err != nil {
		return target{}, err
	}
	ids := make([]string, 0, len(all))
	for id := range all {
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return target{}, mongoerr.New(mongoerr.ShardNotFound, "no shards found; add one with addShard")
	}
	slices.Sort(ids)
	return target{id: ids[0], set: all[ids[0]]}, nil
}

// forgetDatabase removes a dropped database's entry, so its name may be
// placed anew, as MongoDB's dropDatabase does.
func (r *Router) forgetDatabase(c *call) {
	r.mu.Lock()
	delete(r.mu.dbs, c.db)
	r.mu.Unlock()
	if err := r.meta.DropDatabase(c.ctx, c.db); err != nil {
		r.log.Warn("dropDatabase: cannot remove the config.databases entry", "db", c.db, "err", err)
	}
}

// notForwarded are data-node commands a router does not pass on: a
// shard's replication and internals are not the client's to drive.
func notForwarded(name string) bool {
	switch name {
	case "configureFailPoint", "setParameter", "applyOps":
		return true
	}
	return strings.HasPrefix(name, "replSet") || strings.HasPrefix(name, "_")
}

// readOnly commands never create their database.
func readOnly(c *call) bool {
	switch c.name {
	case "find", "count", "distinct", "listCollections", "listIndexes", "dbStats", "collStats",
		"explain", "dropDatabase", "drop", "dropIndexes", "deleteIndexes":
		return true
	case "aggregate":
		return !writesOut(c.cmd)
	}
	return false
}

// idempotent commands may be resent after a network failure: reads, and
// retryable writes (the shard recognises a retried txnNumber).
func idempotent(c *call) bool {
	switch c.name {
	case "find", "count", "distinct", "listCollections", "listIndexes", "dbStats", "collStats", "explain", "ping", "buildInfo":
		return true
	case "aggregate":
		return !writesOut(c.cmd)
	}
	return retryableWrite(c.cmd)
}

// retryableWrite: a txnNumber outside a multi-document transaction.
func retryableWrite(cmd bson.D) bool {
	_, hasTxn := bsonx.Get(cmd, "txnNumber")
	_, inTxn := bsonx.Get(cmd, "autocommit")
	return hasTxn && !inTxn
}

// writesOut reports an aggregation ending in $out or $merge.
func writesOut(cmd bson.D) bool {
	v, _ := bsonx.Get(cmd, "pipeline")
	stages, _ := v.(bson.A)
	if len(stages) == 0 {
		return false
	}
	last, _ := stages[len(stages)-1].(bson.D)
	return len(last) > 0 && (last[0].Key == "$out" || last[0].Key == "$merge")
}

// labelRetryable adds RetryableWriteError to a network failure of a
// retryable write, as mongos does, so the driver retries it.
func labelRetryable(cmd bson.D, err error) error {
	me := mongoerr.From(err)
	if me.Code == mongoerr.HostUnreachable && retryableWrite(cmd) {
		return me.WithLabels(mongoerr.LabelRetryableWrite)
	}
	return me
}
