package command

// readConcern for find, aggregate, count and distinct (getMore reads
// through its cursor's iterator, so it inherits the snapshot).
//
// Levels, as MongoDB's:
//   - local, available: the latest state of this member.
//   - majority: a majority-committed snapshot (catalog.Snapshot); the
//     reply's operationTime is the snapshot's ts. On a standalone every
//     write is committed, so majority reads the latest state.
//   - linearizable: primary only; after the read a no-op is written and
//     waited for at w:majority, proving we were still primary when we read.
//   - snapshot: NotImplemented outside transactions (TODO(#2)).
//
// afterClusterTime / afterOpTime wait (bounded by maxTimeMS, woken by
// commits and commit-point changes) until this member has applied the
// given time, or for majority until its majority snapshot includes it.
//
// Invariant: a read that took a snapshot releases its own reference when
// the handler returns; iterators hold theirs until closed.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Short names the tests use.
const (
	codeNotAReplicaSet               = mongoerr.NotAReplicaSet
	codeLinearizableReadConcernError = mongoerr.LinearizableReadConcernError
)

// readView is what a read runs against once its read concern is satisfied.
type readView struct {
	rc   readConcern
	snap *catalog.Snapshot // majority reads on a replica set
}

// release drops the view's snapshot reference.
func (v *readView) release() {
	if v.snap != nil {
		v.snap.Release()
		v.snap = nil
	}
}

// beginRead parses the command's readConcern and waits until it can be
// served. The caller must call release on the view.
func (c *Ctx) beginRead() (*readView, error) {
	if c.txn != nil {
		return c.txnReadView() // txn_run.go
	}
	v := &readView{rc: readConcern{level: levelLocal}}
	raw, ok := c.field("readConcern")
	if !ok {
		return v, nil
	}
	rc, err := parseReadConcern(raw)
	if err != nil {
		return nil, err
	}
	v.rc = rc
	if c.D.repl == nil {
		return v, rc.checkStandalone()
	}
	if err := c.checkReplicaSetRead(rc); err != nil {
		return nil, err
	}
	ctx, cancel := c.readConcernContext()
	defer cancel()
	if v.snap, err = c.waitReadConcern(ctx, rc); err != nil {
		return nil, err
	}
	return v, nil
}

// checkStandalone applies MongoDB's standalone rules.
func (rc readConcern) checkStandalone() error {
	switch {
	case rc.level == levelLinearizable || rc.hasOpTime:
		return mongoerr.New(codeNotAReplicaSet, "node needs to be a replica set member to use read concern")
	case rc.level == levelSnapshot:
		return mongoerr.New(codeNotAReplicaSet, "node needs to be a replica set member to use readConcern: snapshot")
	case rc.hasAfter:
		return mongoerr.New(mongoerr.IllegalOperation, "Cannot specify afterClusterTime readConcern without replication enabled")
	}
	return nil
}

// checkReplicaSetRead rejects what a replica-set member cannot serve.
func (c *Ctx) checkReplicaSetRead(rc readConcern) error {
	switch rc.level {
	case levelSnapshot:
		if rc.atCluster && rc.at.After(c.clusterTime()) {
			return mongoerr.New(mongoerr.InvalidOptions, "readConcern atClusterTime value must not be greater than the current clusterTime. Requested clusterTime: %s; current clusterTime: %s",
				tsString(rc.at), tsString(c.clusterTime()))
		}
	case levelLinearizable:
		if rc.hasOpTime {
			return mongoerr.New(mongoerr.FailedToParse, "afterOpTime not compatible with linearizable read concern")
		}
		if c.D.repl.CheckWrite("admin") != nil {
			return mongoerr.New(mongoerr.NotWritablePrimary, "cannot satisfy linearizable read concern on non-primary node")
		}
	}
	if rc.hasAfter && !rc.hasOpTime {
		now := c.clusterTime()
		if rc.after.After(now) {
			return mongoerr.New(mongoerr.InvalidOptions, "readConcern afterClusterTime value must not be greater than the current clusterTime. Requested clusterTime: %s; current clusterTime: %s",
				tsString(rc.after), tsString(now))
		}
	}
	return nil
}

// clusterTime is the newest cluster time this member knows: its oplog
// top, its own allocations and every $clusterTime gossiped to it (the
// request's was taken in by gossipIn before the command ran).
func (c *Ctx) clusterTime() bson.Timestamp {
	log := c.D.eng.Catalog().Oplog()
	top, _ := log.Top()
	if ct := log.ClusterTime(); ct.After(top) {
		return ct
	}
	return top
}

func tsString(ts bson.Timestamp) string { return fmt.Sprintf("Timestamp(%d, %d)", ts.T, ts.I) }

// waitReadConcern waits for afterClusterTime/afterOpTime and returns the
// majority snapshot for majority reads.
func (c *Ctx) waitReadConcern(ctx context.Context, rc readConcern) (*catalog.Snapshot, error) {
	cat := c.D.eng.Catalog()
	if rc.hasAfter {
		c.noopIfAhead(rc.after)
	}
	if rc.level == levelMajority {
		s, err := cat.WaitMajoritySnapshot(ctx, rc.after)
		return s, readWaitErr(err)
	}
	if rc.level == levelSnapshot {
		return c.waitSnapshotRead(ctx, rc) // snapshot_read.go
	}
	if rc.hasAfter {
		return nil, readWaitErr(cat.WaitApplied(ctx, rc.after))
	}
	return nil, nil
}

// noopIfAhead writes a no-op on a primary asked to read after a time it
// has not reached (the client learned it elsewhere), so the wait ends, as
// MongoDB's makeNoopWriteIfNeeded. The cluster time is first raised to
// after (checkReplicaSetRead bounded it by the known cluster time), so
// the no-op's timestamp is after it even when this member's wall clock
// is behind the member that wrote at after.
func (c *Ctx) noopIfAhead(after bson.Timestamp) {
	cat := c.D.eng.Catalog()
	if top, _ := cat.Oplog().Top(); !after.After(top) || c.D.repl.CheckWrite("admin") != nil {
		return
	}
	if err := advanceClusterTime(cat.Oplog(), after); err != nil {
		c.D.log.Warn("advancing the cluster time for afterClusterTime failed", "err", err)
		return
	}
	if _, err := cat.WriteNoop(bson.D{{Key: "noop write for afterClusterTime read concern", Value: int32(1)}}); err != nil {
		c.D.log.Warn("no-op write for afterClusterTime failed", "err", err)
	}
}

// readWaitErr maps a read-concern wait's end to MongoDB's errors.
func readWaitErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		return mongoerr.New(mongoerr.MaxTimeMSExpired, "operation exceeded time limit")
	case errors.Is(err, context.Canceled):
		return mongoerr.New(mongoerr.InterruptedAtShutdown, "interrupted at shutdown")
	}
	return err
}

// readConcernContext bounds read-concern waits by maxTimeMS (none: no
// bound, as MongoDB) and by process shutdown.
func (c *Ctx) readConcernContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	if ms, ok, _ := c.int64Field("maxTimeMS"); ok && ms > 0 {
		cancel()
		ctx, cancel = context.WithTimeout(context.Background(), time.Duration(ms)*time.Millisecond)
	}
	go func() {
		select {
		case <-c.D.shuttingDown():
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// finishRead completes a read: a linearizable read confirms this member
// was still primary; a majority read reports its snapshot's time as
// operationTime (clients use it for causal consistency).
func (c *Ctx) finishRead(v *readView, reply bson.D) (bson.D, error) {
	if v.rc.level == levelLinearizable && c.D.repl != nil {
		if err := c.confirmLinearizable(); err != nil {
			return nil, err
		}
	}
	if v.snap != nil {
		reply = append(reply, bson.E{Key: "operationTime", Value: v.snap.TS()})
	}
	if v.rc.level == levelSnapshot && v.snap != nil {
		reply = withAtClusterTime(reply, v) // snapshot_read.go
	}
	return reply, nil
}

// confirmLinearizable writes a no-op after the read and waits for it to be
// majority-committed: if it commits, no other primary can have accepted
// a write this read missed.
func (c *Ctx) confirmLinearizable() error {
	if c.D.repl.CheckWrite("admin") != nil {
		return mongoerr.New(mongoerr.NotWritablePrimary, "No longer primary when waiting for linearizable read concern")
	}
	r, err := c.D.eng.Catalog().WriteNoop(bson.D{{Key: "msg", Value: "linearizable read"}})
	if err != nil {
		return err
	}
	ctx, cancel := c.readConcernContext()
	defer cancel()
	err = c.D.repl.WaitWriteConcern(ctx, r.TS, "majority", false)
	var me *mongoerr.Error
	if errors.As(err, &me) && me.Code == mongoerr.WriteConcernFailed {
		return mongoerr.New(codeLinearizableReadConcernError, "Failed to confirm that read was linearizable.")
	}
	return err
}

// opTimeFields returns reply with the coordinator's $clusterTime and
// operationTime appended (fields the handler set are kept: a majority
// read's operationTime). Both are raised to this member's oplog top: the
// coordinator learns its own writes asynchronously, and a client's
// operationTime must cover its write for causal consistency.
// $clusterTime is raised further to the member's cluster time (a newer
// $clusterTime gossiped to it), which it gossips on as MongoDB's nodes do.
func (d *Dispatcher) opTimeFields(reply bson.D) bson.D {
	fields := d.repl.OpTimeFields()
	if len(fields) == 0 {
		return reply
	}
	log := d.eng.Catalog().Oplog()
	top, _ := log.Top()
	clock := top
	if ct := log.ClusterTime(); ct.After(clock) {
		clock = ct
	}
	for _, f := range fields {
		if _, ok := bsonx.Get(reply, f.Key); !ok {
			to := top
			if f.Key == "$clusterTime" {
				to = clock
			}
			reply = append(reply, raiseOpTime(f, to))
		}
	}
	return reply
}

// raiseOpTime returns f (operationTime or $clusterTime) with its time
// raised to at least top.
func raiseOpTime(f bson.E, top bson.Timestamp) bson.E {
	switch v := f.Value.(type) {
	case bson.Timestamp:
		if top.After(v) {
			f.Value = top
		}
	case bson.D:
		ct := make(bson.D, len(v))
		copy(ct, v)
		for i, e := range ct {
			if ts, ok := e.Value.(bson.Timestamp); ok && e.Key == "clusterTime" && top.After(ts) {
				ct[i].Value = top
			}
		}
		f.Value = ct
	}
	return f
}
