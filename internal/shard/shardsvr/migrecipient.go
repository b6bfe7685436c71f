package shardsvr

import (
	"context"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// The recipient's side of a migration (MongoDB's
// MigrationDestinationManager). Invariants:
//   - Before cloning, the range is emptied here (leftovers of an earlier
//     clone this shard never owned); a range deletion task of this shard
//     overlapping it is waited for when it is due now and refuses the
//     start when it is delayed: its deleter could delete what is cloned.
//   - Documents are written in catalog batches with an oplog entry each
//     (catalog.PutDocuments, DeleteDocuments), so this shard's secondaries
//     get them; the range is not owned until the commit, so reads filter
//     it out meanwhile.
//   - Mods are applied in the order the donor sent them: a reload
//     replaces the document, a delete removes it.
//   - Commit: after the donor holds its critical section, the last mods
//     are fetched until none is left, and everything written is majority
//     committed here before the commit is acknowledged.
//   - Abort (or a failure): the clone stops and its documents are deleted
//     at once, or by a range deletion task when that fails (it deletes
//     only what this shard does not own).
//
// The clone and catch-up themselves are in migrecipient_clone.go.

// Recipient states, as _recvChunkStatus reports them (MongoDB's names).
const (
	stateClone    = "clone"
	stateCatchup  = "catchup"
	stateSteady   = "steady"
	stateCommit   = "commitStart"
	stateDone     = "done"
	stateFail     = "fail"
	stateAborting = "abort"
)

// RecvStart is a _recvChunkStart request.
type RecvStart struct {
	SessionID string
	NS        string
	FromShard string
	From      string // the donor's connection string
	Min, Max  bson.D
	Key       key.Pattern
	Indexes   []bson.D // the donor's index specs, _id_ excepted
	Options   bson.D   // the donor's collection options (validator, ...)
}

type recipient struct {
	req    RecvStart
	cancel context.CancelFunc
	commit chan chan error // a commit request and where to answer
	done   chan struct{}   // closed when the clone's goroutine has ended

	mu      sync.Mutex
	state   string
	errmsg  string
	cloned  int64
	mods    int64
	pending int64 // bytes in the last mods reply
	lastTS  bson.Timestamp
}

// status is the _recvChunkStatus reply.
func (r *recipient) status() bson.D {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := bson.D{
		{Key: "active", Value: r.state != stateDone && r.state != stateFail && r.state != stateAborting},
		{Key: "sessionId", Value: r.req.SessionID}, {Key: "ns", Value: r.req.NS}, {Key: "from", Value: r.req.From},
		{Key: "fromShardId", Value: r.req.FromShard}, {Key: "min", Value: r.req.Min}, {Key: "max", Value: r.req.Max},
		{Key: "state", Value: r.state},
		{Key: "counts", Value: bson.D{{Key: "cloned", Value: r.cloned}, {Key: "catchup", Value: r.mods}}},
		{Key: "pendingBytes", Value: r.pending},
	}
	if r.errmsg != "" {
		d = append(d, bson.E{Key: "errmsg", Value: r.errmsg})
	}
	return d
}

func (r *recipient) set(f func(r *recipient)) {
	r.mu.Lock()
	f(r)
	r.mu.Unlock()
}

// RecvChunkStart starts receiving a range; one at a time per shard.
func (m *Migrations) RecvChunkStart(ctx context.Context, req RecvStart) error {
	if err := m.checkNoOverlappingDeletion(ctx, req); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if r := m.receiving; r != nil {
		r.mu.Lock()
		busy := r.state != stateDone && r.state != stateFail && r.state != stateAborting
		r.mu.Unlock()
		if busy && r.req.SessionID != req.SessionID {
			return mongoerr.New(mongoerr.ConflictingOperationInProgress, "this shard is already receiving %s of %s", routing.Chunk{Min: r.req.Min, Max: r.req.Max}.Range(), r.req.NS)
		}
		if busy {
			return nil // a resent start
		}
	}
	rctx, cancel := context.WithCancel(context.Background())
	r := &recipient{req: req, cancel: cancel, commit: make(chan chan error), done: make(chan struct{}), state: stateClone}
	m.receiving = r
	go m.receive(rctx, r)
	return nil
}

// overlapWait bounds the wait for a running range deletion that overlaps
// a range to receive.
const overlapWait = 30 * time.Second

// checkNoOverlappingDeletion waits (boundedly) for the range deletions of
// this shard overlapping the range that are due now; a delayed one
// (orphanCleanupDelaySecs has not passed since this shard gave the range
// away) refuses the start, as MongoDB's recipient does.
func (m *Migrations) checkNoOverlappingDeletion(ctx context.Context, req RecvStart) error {
	deadline := time.Now().Add(overlapWait)
	for {
		tasks, err := m.opts.Store.Tasks(ctx)
		if err != nil {
			return err
		}
		var due, delayed bool
		for _, t := range tasks {
			if t.NS == req.NS && key.Compare(t.Min, req.Max) < 0 && key.Compare(req.Min, t.Max) < 0 {
				due = due || t.WhenToClean == "now" || t.Processing
				delayed = delayed || !(t.WhenToClean == "now" || t.Processing)
			}
		}
		switch {
		case delayed || (due && time.Now().After(deadline)):
			return mongoerr.New(mongoerr.ConflictingOperationInProgress,
				"a range deletion of %s overlapping %s is pending on the recipient", req.NS, routing.Chunk{Min: req.Min, Max: req.Max}.Range())
		case !due:
			return nil
		}
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
}

// session returns the recipient of sessionID.
func (m *Migrations) session(sessionID string) (*recipient, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r := m.receiving; r != nil && r.req.SessionID == sessionID {
		return r, nil
	}
	return nil, mongoerr.New(mongoerr.IllegalOperation, "no migration with session %s is being received", sessionID)
}

// RecvChunkStatus reports the clone of sessionID.
func (m *Migrations) RecvChunkStatus(sessionID string) (bson.D, error) {
	r, err := m.session(sessionID)
	if err != nil {
		return nil, err
	}
	return r.status(), nil
}

// RecvChunkCommit applies the last mods (the donor holds its critical
// section) and returns once they are majority committed here.
func (m *Migrations) RecvChunkCommit(ctx context.Context, sessionID string) error {
	r, err := m.session(sessionID)
	if err != nil {
		return err
	}
	answer := make(chan error, 1)
	select {
	case r.commit <- answer:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-answer:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// RecvChunkAbort stops the clone of sessionID (any state) and schedules
// the deletion of what it wrote.
//
// The clone's documents are deleted at once when its session is known
// (its goroutine has stopped); otherwise, or if that fails, a range
// deletion task is scheduled. Either way the next clone of the range
// empties it first.
func (m *Migrations) RecvChunkAbort(ctx context.Context, sessionID string, ns string, lo, hi bson.D) error {
	if r, err := m.session(sessionID); err == nil {
		r.cancel()
		r.set(func(r *recipient) {
			if r.state != stateDone {
				r.state = stateAborting
			}
		})
		select {
		case <-r.done:
			if err := m.emptyRange(ctx, r.req); err == nil {
				return nil
			}
		case <-ctx.Done():
		}
	}
	_, err := m.opts.Ranges.Schedule(ctx, ns, lo, hi, "now")
	return err
}
