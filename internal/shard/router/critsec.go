package router

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// A router's DDL on a sharded namespace (shardCollection, drop, the drops
// of dropDatabase) changes the metadata while every shard holds the
// namespace's critical section (shardsvr/critsec.go): entering waits for
// the versioned operations already admitted, so none of them applies a
// write under the old placement after the commit; exiting makes the
// shards reload the metadata, so the operations held meanwhile, and
// every stale router after them, are checked against the new one.

// ddlLease bounds how long a shard holds a section this router does not
// release (the router died mid-DDL).
const ddlLease = 30 * time.Second

// exitTimeout bounds releasing the sections, which happens even when the
// client has gone away.
const exitTimeout = 10 * time.Second

// withCriticalSection runs change while the shards ids hold ns's critical
// section, and releases them (all of them, whatever change returned)
// before returning.
func (r *Router) withCriticalSection(c *call, ns string, ids []string, change func() error) error {
	enter := bson.D{{Key: "_shardsvrCriticalSection", Value: ns}, {Key: "action", Value: "enter"},
		{Key: "leaseMillis", Value: ddlLease.Milliseconds()}}
	admin := &call{r: r, conn: c.conn, db: "admin", cmd: enter, name: "_shardsvrCriticalSection", ctx: c.ctx}
	var entered []string
	var err error
	for _, sr := range r.sendAll(admin, ids, false, func(string) bson.D { return enter }) {
		if sr.err == nil {
			entered = append(entered, sr.shard)
		} else if err == nil {
			err = fmt.Errorf("entering the critical section of %s on %s: %w", ns, sr.shard, sr.err)
		}
	}
	if err == nil {
		err = change()
	}
	r.exitCriticalSection(c, ns, entered)
	return err
}

// exitCriticalSection releases ns's section on the shards ids (a shard
// that does not answer ends it at the lease).
func (r *Router) exitCriticalSection(c *call, ns string, ids []string) {
	if len(ids) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), exitTimeout)
	defer cancel()
	exit := bson.D{{Key: "_shardsvrCriticalSection", Value: ns}, {Key: "action", Value: "exit"}}
	admin := &call{r: r, conn: c.conn, db: "admin", cmd: exit, name: "_shardsvrCriticalSection", ctx: ctx}
	for _, sr := range r.sendAll(admin, ids, false, func(string) bson.D { return exit }) {
		if sr.err != nil {
			r.log.Warn("critical section not released; its lease will end it", "ns", ns, "shard", sr.shard, "err", sr.err)
		}
	}
}
