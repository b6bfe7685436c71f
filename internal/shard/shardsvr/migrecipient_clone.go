package shardsvr

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

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

// prepareCollection creates the collection (with the donor's options)
// and the donor's indexes.
func (m *Migrations) prepareCollection(req RecvStart) error {
	db, name := splitNS(req.NS)
	if m.opts.Eng.Catalog().Collection(db, name) == nil && len(req.Options) > 0 {
		_, err := m.opts.Eng.Catalog().CreateCollection(db, name, req.Options)
		if err != nil && !mongoerr.Is(err, mongoerr.NamespaceExists) {
			return fmt.Errorf("create %s: %w", req.NS, err)
		}
	}
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
