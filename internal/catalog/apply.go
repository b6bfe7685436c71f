package catalog

// Applying replicated oplog entries on a secondary.
//
// Invariants (in addition to the package's):
//   - An applied entry is written to the local oplog with the ts and term
//     its primary gave it, in the SAME storage batch as its effect and the
//     appliedThrough marker. Entries are applied one batch each, strictly in
//     ts order, under writeMu. So after a crash the oplog, the data and
//     appliedThrough all describe the same prefix of the primary's history:
//     no truncate-after point or minValid write is needed around a batch.
//   - Application is idempotent, as MongoDB's oplog application: an insert
//     is an upsert; an update or delete of a missing document, and any
//     CRUD entry on a missing collection (found by UUID), only write the
//     entry; DDL whose effect is already present only writes the entry.
//   - Entries at or before the oplog top are skipped when the local oplog
//     holds the same entry (ts and term); a different entry is an error
//     (ErrOplogMismatch: the caller must roll back).
//   - Unique-index conflicts are errors (DuplicateKey), as in MongoDB's
//     steady-state replication: our unique indexes cannot hold the
//     transient duplicates MongoDB's relaxed secondaries allow.

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/storage"
)

// replState is the catalog's secondary-side state.
type replState struct {
	ttlPaused  atomic.Bool   // SetTTLPaused
	appliedSeq atomic.Uint64 // storage commit seq of the last applied entry
	relax      relaxState    // initial sync's relaxed constraints (clone.go)
	snaps      snapMgr       // majority-committed snapshots (snapshot.go)
}

// ErrOplogMismatch is returned by ApplyBatch for an entry at or before the
// local oplog's top that the local oplog does not hold (a different term
// at that ts, or a hole): the histories diverged.
var ErrOplogMismatch = errors.New("catalog: replicated entry conflicts with the local oplog")

// SetTTLPaused pauses (true) or resumes the TTL monitor. A secondary pauses
// it: only the primary deletes expired documents, and its deletes replicate.
func (c *Catalog) SetTTLPaused(paused bool) { c.repl.ttlPaused.Store(paused) }

// ApplyBatch applies replicated entries in order, each with its effect in
// one storage batch (see the invariants above). It stops at the first
// error; entries before it stay applied. It may set an insert entry's ORaw
// (the encoded document) to avoid encoding it twice.
func (c *Catalog) ApplyBatch(entries []*oplog.Entry) error {
	for i, e := range entries {
		if i > 0 && !e.TS.After(entries[i-1].TS) {
			return fmt.Errorf("catalog: apply: entry %v not after %v", e.TS, entries[i-1].TS)
		}
		if err := c.applyEntry(e); err != nil {
			return fmt.Errorf("catalog: apply %s %s at %v (term %d): %w", e.Op, e.NS, e.TS, e.Term, err)
		}
	}
	return nil
}

// AppliedSeq returns the storage commit sequence of the last applied entry
// (pass it to Engine().WaitDurable).
func (c *Catalog) AppliedSeq() uint64 { return c.repl.appliedSeq.Load() }

// applyEntry applies one entry under writeMu.
func (c *Catalog) applyEntry(e *oplog.Entry) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if top, _ := c.log.Top(); !e.TS.After(top) {
		return c.checkPresent(e)
	}
	switch e.Op {
	case oplog.OpInsert:
		return c.applyInsert(e)
	case oplog.OpUpdate:
		return c.applyUpdate(e)
	case oplog.OpDelete:
		return c.applyDelete(e)
	case oplog.OpCommand:
		return c.applyCommand(e)
	case oplog.OpNoop:
		return c.commitApplied(c.eng.NewBatch(), e, nil)
	}
	return fmt.Errorf("unknown op %q", e.Op)
}

// checkPresent accepts an entry the local oplog already holds.
func (c *Catalog) checkPresent(e *oplog.Entry) error {
	if e.TS.Before(c.log.First()) {
		return nil // applied long ago and truncated by size
	}
	raw, ok, err := c.eng.Get(storage.OplogKey(e.TS))
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: no local entry at %v", ErrOplogMismatch, e.TS)
	}
	have, err := oplog.Unmarshal(raw)
	if err != nil {
		return err
	}
	if have.Term != e.Term {
		return fmt.Errorf("%w: local entry at %v has term %d", ErrOplogMismatch, e.TS, have.Term)
	}
	return nil
}

// commitApplied writes e (its own ts and term) and the appliedThrough
// marker into b, commits it and publishes. REQUIRES: c.writeMu.
func (c *Catalog) commitApplied(b *storage.Batch, e *oplog.Entry, publish func()) error {
	defer b.Close()
	s, err := c.log.ReserveAt(e.TS, e.Term)
	if err != nil {
		return err
	}
	if err := c.log.Append(b, s, e); err != nil {
		c.log.Abort(s)
		return err
	}
	if err := putOpTime(b, storage.KeyAppliedThrough, e.OpTime()); err != nil {
		c.log.Abort(s)
		return err
	}
	seq, err := c.commitTracked(b, e.TS)
	if err != nil {
		c.log.Abort(s)
		return err
	}
	if publish != nil {
		c.mu.Lock()
		publish()
		c.mu.Unlock()
	}
	c.repl.appliedSeq.Store(seq)
	c.log.Commit(s)
	return nil
}

// resolve returns the collection an entry names: by UUID when the entry
// has one (a rename or drop-and-recreate keeps entries on their
// collection), else by namespace. nil if it does not exist.
func (c *Catalog) resolve(ns string, ui *bson.Binary) *Collection {
	db, name, _ := strings.Cut(ns, ".")
	coll := c.Collection(db, name)
	if ui == nil || (coll != nil && bytes.Equal(coll.UUID.Data, ui.Data)) {
		return coll
	}
	return c.collectionByUUID(*ui)
}

// collectionByUUID finds a collection by UUID (a scan: only reached when
// the namespace lookup misses).
func (c *Catalog) collectionByUUID(ui bson.Binary) *Collection {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, coll := range c.mu.byID {
		if bytes.Equal(coll.UUID.Data, ui.Data) {
			return coll
		}
	}
	return nil
}

// skip writes only e: its effect is absent or already present.
func (c *Catalog) skip(e *oplog.Entry, why string) error {
	c.logger.Debug("oplog application: entry has no effect", "op", e.Op, "ns", e.NS, "ts", e.TS, "why", why)
	return c.commitApplied(c.eng.NewBatch(), e, nil)
}
