package shardsvr

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// The recipient's side of a migration (MongoDB's
// MigrationDestinationManager). Invariants:
//   - Before cloning, the range is emptied here (leftovers of an earlier
//     clone this shard never owned), and a range deletion task of this
//     shard overlapping it refuses the start: its deleter could delete
//     what is being cloned.
//   - Documents are written through the executor (index and oplog entries
//     follow, so this shard's secondaries get them); the range is not
//     owned until the commit, so reads filter it out meanwhile.
//   - Mods are applied in the order the donor sent them: a reload
//     replaces the document, a delete removes it.
//   - Commit: after the donor holds its critical section, the last mods
//     are fetched until none is left, and everything written is majority
//     committed here before the commit is acknowledged.
//   - Abort (or a failure): the clone stops and its documents are deleted
//     by a range deletion task (which deletes only what this shard does
//     not own).

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

// receive runs one clone to its end.
func (m *Migrations) receive(ctx context.Context, r *recipient) {
	defer close(r.done)
	err := m.receiveSteps(ctx, r)
	r.set(func(r *recipient) {
		if err != nil {
			if r.state != stateAborting {
				r.state = stateFail
			}
			r.errmsg = err.Error()
		}
	})
	if err != nil {
		m.opts.Logger.Warn("migration clone failed", "ns", r.req.NS, "session", r.req.SessionID, "err", err)
	}
}

func (m *Migrations) receiveSteps(ctx context.Context, r *recipient) error {
	req := r.req
	if err := m.prepareCollection(req); err != nil {
		return err
	}
	if err := m.emptyRange(ctx, req); err != nil {
		return fmt.Errorf("emptying the range: %w", err)
	}
	if err := m.cloneAll(ctx, r); err != nil {
		return err
	}
	r.set(func(r *recipient) { r.state = stateCatchup })
	return m.catchUp(ctx, r)
}

// prepareCollection creates the collection and the donor's indexes.
func (m *Migrations) prepareCollection(req RecvStart) error {
	db, name := splitNS(req.NS)
	coll, err := m.opts.Eng.CollectionForWrite(db, name)
	if err != nil {
		return fmt.Errorf("create %s: %w", req.NS, err)
	}
	if len(req.Indexes) == 0 {
		return nil
	}
	if _, _, err := m.opts.Eng.Catalog().CreateIndexes(coll, req.Indexes); err != nil {
		return fmt.Errorf("create the indexes of %s: %w", req.NS, err)
	}
	return nil
}

// emptyRange deletes what this shard has of the range (it owns none of it).
func (m *Migrations) emptyRange(ctx context.Context, req RecvStart) error {
	for range 1 << 20 {
		n, err := m.opts.Store.DeleteBatch(ctx, req.NS, req.Key, req.Min, req.Max, 1000)
		if err != nil || n == 0 {
			return err
		}
	}
	return nil
}

// cloneAll pulls _migrateClone batches until an empty one; the next
// batch is fetched while the last one is written (at most two batches of
// cloneBatchBytes are held).
func (m *Migrations) cloneAll(ctx context.Context, r *recipient) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type batch struct {
		docs []bson.D
		err  error
	}
	batches := make(chan batch, 1)
	go func() {
		defer close(batches)
		for ctx.Err() == nil {
			reply, err := m.run(ctx, r.req.From, bson.D{{Key: "_migrateClone", Value: 1}, {Key: "sessionId", Value: r.req.SessionID}}, true)
			if err != nil {
				err = fmt.Errorf("_migrateClone: %w", err)
			}
			var docs []bson.D
			if err == nil {
				docs, err = rawDocs(reply, "objects")
			}
			select {
			case batches <- batch{docs, err}:
			case <-ctx.Done():
				return
			}
			if err != nil || len(docs) == 0 {
				return
			}
		}
	}()
	for b := range batches {
		if b.err != nil {
			return b.err
		}
		if len(b.docs) == 0 {
			return nil
		}
		if err := m.writeDocs(ctx, r, b.docs); err != nil {
			return err
		}
		r.set(func(r *recipient) { r.cloned += int64(len(b.docs)) })
	}
	return ctx.Err()
}

// applyBatch is how many documents one local write batch holds: the
// catalog's write lock is held while it commits, so other writes on this
// shard wait at most for one batch.
const applyBatch = 256

// writeDocs writes docs, replacing any document with the same _id.
func (m *Migrations) writeDocs(ctx context.Context, r *recipient, docs []bson.D) error {
	coll, err := m.recipientColl(r)
	if err != nil {
		return err
	}
	for start := 0; start < len(docs); start += applyBatch {
		if err := ctx.Err(); err != nil {
			return err
		}
		res, err := m.opts.Eng.Catalog().PutDocuments(coll, docs[start:min(start+applyBatch, len(docs))])
		if err != nil {
			return fmt.Errorf("clone write: %w", err)
		}
		r.noteTS(res.TS)
	}
	return nil
}

func (m *Migrations) deleteIDs(r *recipient, ids bson.A) error {
	coll, err := m.recipientColl(r)
	if err != nil {
		return err
	}
	for start := 0; start < len(ids); start += applyBatch {
		res, err := m.opts.Eng.Catalog().DeleteDocuments(coll, ids[start:min(start+applyBatch, len(ids))])
		if err != nil {
			return fmt.Errorf("apply deletes: %w", err)
		}
		r.noteTS(res.TS)
	}
	return nil
}

func (m *Migrations) recipientColl(r *recipient) (*catalog.Collection, error) {
	db, name := splitNS(r.req.NS)
	return m.opts.Eng.CollectionForWrite(db, name)
}

func (r *recipient) noteTS(ts bson.Timestamp) {
	if !ts.IsZero() {
		r.set(func(r *recipient) {
			if ts.After(r.lastTS) {
				r.lastTS = ts
			}
		})
	}
}

// catchUp applies mods until a commit is asked for, then the last ones.
func (m *Migrations) catchUp(ctx context.Context, r *recipient) error {
	for {
		more, err := m.applyMods(ctx, r, false)
		if err != nil {
			return err
		}
		if !more {
			r.set(func(r *recipient) { r.state = stateSteady })
		}
		wait := 20 * time.Millisecond
		if more {
			wait = 0
		}
		select {
		case answer := <-r.commit:
			err := m.finalMods(ctx, r)
			answer <- err
			return err
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// finalMods applies what is left once the donor holds its critical
// section and waits until it is majority committed here.
func (m *Migrations) finalMods(ctx context.Context, r *recipient) error {
	r.set(func(r *recipient) { r.state = stateCommit })
	for range 1 << 20 {
		more, err := m.applyMods(ctx, r, true)
		if err != nil {
			return err
		}
		if !more {
			break
		}
	}
	r.mu.Lock()
	ts := r.lastTS
	r.mu.Unlock()
	if wait := m.opts.Store.WaitMajority; wait != nil && !ts.IsZero() {
		if err := wait(ctx, ts); err != nil {
			return fmt.Errorf("waiting for the clone's majority commit: %w", err)
		}
	}
	r.set(func(r *recipient) { r.state = stateDone })
	return nil
}

// applyMods fetches and applies one _transferMods reply.
func (m *Migrations) applyMods(ctx context.Context, r *recipient, final bool) (more bool, err error) {
	reply, err := m.run(ctx, r.req.From, bson.D{{Key: "_transferMods", Value: 1}, {Key: "sessionId", Value: r.req.SessionID}, {Key: "final", Value: final}}, true)
	if err != nil {
		return false, fmt.Errorf("_transferMods: %w", err)
	}
	deleted, _ := bsonx.Get(reply, "deleted")
	ids, _ := deleted.(bson.A)
	reload, err := rawDocs(reply, "reload")
	if err != nil {
		return false, err
	}
	if err := m.deleteIDs(r, ids); err != nil {
		return false, err
	}
	if err := m.writeDocs(ctx, r, reload); err != nil {
		return false, err
	}
	sv, _ := bsonx.Get(reply, "size")
	size, _ := bsonx.AsInt64(sv)
	r.set(func(r *recipient) { r.mods += int64(len(ids) + len(reload)); r.pending = size })
	m2, _ := bsonx.Get(reply, "more")
	return m2 == true, nil
}

// rawDocs returns the documents of reply's array field.
func rawDocs(reply bson.D, field string) ([]bson.D, error) {
	v, _ := bsonx.Get(reply, field)
	arr, _ := v.(bson.A)
	out := make([]bson.D, 0, len(arr))
	for _, e := range arr {
		d, ok := e.(bson.D)
		if !ok {
			return nil, mongoerr.New(mongoerr.TypeMismatch, "%s must hold documents", field)
		}
		out = append(out, d)
	}
	return out, nil
}
