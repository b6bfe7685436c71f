package command

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// ShardVersioner checks the shardVersion and databaseVersion a router
// sends with a request (package shard/shardsvr). It is nil on a node that
// is not a shard, which ignores the fields as before. See docs/sharding.md.
type ShardVersioner interface {
	// CheckShardVersion returns nil when cmd, run on db, may be served: it
	// carries no version or versions matching this shard's metadata.
	// Otherwise the error is StaleConfig, StaleDbVersion or
	// ShardingStateNotInitialized, possibly carrying ExtraInfo.
	CheckShardVersion(ctx context.Context, db string, cmd bson.D) error
}

// ShardOpGuard is implemented by a shard's ShardVersioner
// (shardsvr.State): versioned operations are admitted one by one and
// counted, so a router's DDL can hold a namespace's critical section
// (_shardsvrCriticalSection) that waits for those admitted and blocks new
// ones until the metadata has changed.
type ShardOpGuard interface {
	BeginOp(ctx context.Context, ns string, cmd bson.D) (release func(), err error)
	EnterCriticalSection(ctx context.Context, ns string, lease time.Duration) error
	ExitCriticalSection(ns string)
}

// ReadFilterer is implemented by a shard's ShardVersioner
// (shardsvr.State): after a versioned read's check passed, it returns the
// filter keeping only the documents the shard owns (nil: none), from the
// metadata the check validated.
type ReadFilterer interface {
	ReadFilter(db string, cmd bson.D) (exec.OwnershipFilter, error)
}

// filteredReads are the reads whose documents a shard filters by
// ownership (MongoDB's SHARDING_FILTER), their explain included.
var filteredReads = map[string]bool{"find": true, "aggregate": true, "count": true, "distinct": true}

// extraInfoer is an error carrying MongoDB's ErrorExtraInfo (StaleConfig's
// ns, vReceived, vWanted, shardId): fields serialized inline after
// codeName in an error reply and after errmsg in a write error.
type extraInfoer interface{ ExtraInfo() bson.D }

// extraInfo returns err's extra info fields, or nil.
func extraInfo(err error) bson.D {
	var x extraInfoer
	if errors.As(err, &x) {
		return x.ExtraInfo()
	}
	return nil
}

// SetShardVersioner attaches a shard's version check (before serving).
func (d *Dispatcher) SetShardVersioner(v ShardVersioner) { d.shardVersioner = v }

// versionedCommands are the commands a router sends with shardVersion or
// databaseVersion whose versions a shard checks (getMore is not: its
// cursor was opened by a checked request).
var versionedCommands = map[string]bool{
	"find": true, "insert": true, "update": true, "delete": true,
	"findAndModify": true, "aggregate": true, "count": true, "distinct": true,
}

// writeCommands answer a stale version as a write error, as MongoDB's
// write path does: {n: 0, writeErrors: [{index: 0, code, errmsg, ...}]},
// ok: 1; the rest of the batch is not run.
var writeCommands = map[string]bool{"insert": true, "update": true, "delete": true}

// checkShardVersion runs the shard version check for a versioned command
// (for an explain, of the command explained: the router versions that).
// A write command's failure is returned as its reply (handled true). A
// command versioned for a collection is admitted by the shard's
// ShardOpGuard first (waiting out a critical section); release, when not
// nil, must be called once the command has run.
func (d *Dispatcher) checkShardVersion(c *Command, ctx *Ctx) (reply bson.D, handled bool, release func(), err error) {
	cmd, name := ctx.Cmd, c.Name
	if inner, ok := cmd[0].Value.(bson.D); ok && name == "explain" && len(inner) > 0 {
		cmd, name = inner, inner[0].Key
	}
	if d.shardVersioner == nil || !versionedCommands[name] {
		return nil, false, nil, nil
	}
	cctx, cancel := ctx.replContext()
	defer cancel()
	if release, err = d.admitVersioned(cctx, ctx.DB, cmd); err != nil {
		return nil, false, nil, err
	}
	err = d.shardVersioner.CheckShardVersion(cctx, ctx.DB, cmd)
	if err == nil && c.Name != "explain" {
		d.sampleLoad(cctx, name, ctx.DB, cmd) // balancer_load.go
	}
	if err == nil && filteredReads[name] {
		err = d.readFilter(ctx, cmd)
	}
	if err != nil && release != nil {
		release()
		release = nil
	}
	if err == nil || !writeCommands[c.Name] {
		return nil, false, release, err
	}
	reply = bson.D{{Key: "n", Value: int32(0)}}
	if c.Name == "update" {
		reply = append(reply, bson.E{Key: "nModified", Value: int32(0)})
	}
	return append(reply, bson.E{Key: "writeErrors", Value: staleWriteErrors(ctx.Cmd, err)}), true, nil, nil
}

// readFilter sets ctx.Owned for a versioned read the check passed.
func (d *Dispatcher) readFilter(ctx *Ctx, cmd bson.D) error {
	f, ok := d.shardVersioner.(ReadFilterer)
	if !ok {
		return nil
	}
	own, err := f.ReadFilter(ctx.DB, cmd)
	ctx.Owned = own
	return err
}

// admitVersioned admits cmd through the shard's ShardOpGuard when it
// carries a shardVersion for a collection; release is nil otherwise.
func (d *Dispatcher) admitVersioned(ctx context.Context, db string, cmd bson.D) (release func(), err error) {
	g, ok := d.shardVersioner.(ShardOpGuard)
	coll, isColl := cmd[0].Value.(string)
	if _, versioned := bsonx.Get(cmd, "shardVersion"); !ok || !isColl || !versioned {
		return nil, nil
	}
	return g.BeginOp(ctx, db+"."+coll, cmd)
}

// staleWriteErrors is err as the write errors of a batch none of whose
// statements ran: statement 0 of an ordered batch, every statement of an
// unordered one (MongoDB repeats a stale error for each remaining
// statement, so the router retries them all).
func staleWriteErrors(cmd bson.D, err error) bson.A {
	me := mongoerr.From(err)
	n := 1
	if ordered, ok := bsonx.Get(cmd, "ordered"); ok && ordered == false {
		for _, f := range []string{"documents", "updates", "deletes"} {
			if v, ok := bsonx.Get(cmd, f); ok {
				arr, _ := v.(bson.A)
				n = max(len(arr), 1)
			}
		}
	}
	out := make(bson.A, n)
	for i := range n {
		out[i] = append(bson.D{{Key: "index", Value: int32(i)}, {Key: "code", Value: int32(me.Code)}, {Key: "errmsg", Value: me.Msg}}, extraInfo(err)...)
	}
	return out
}
