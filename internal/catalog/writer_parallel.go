package catalog

// Document writes prepared on several goroutines inside one Writer's batch
// (Fork, Join): secondary oplog application (repl/applier) applies a run
// of CRUD entries with several writers and commits them as ONE batch.
//
// Invariants:
//   - Fork is called on a Writer that has written nothing yet; each
//     sub-writer has a storage batch of its own, so its reads see the
//     committed state and its own earlier writes, never another
//     sub-writer's. The caller partitions the work so that no two
//     sub-writers write the same storage key: by document (collection,
//     _id) on a collection whose document writes touch only keys of the
//     document itself (PerDocumentWrites), by collection otherwise. Then
//     each document's writes see the same state, in the same order, as
//     in one batch, and the merge order of the sub-batches is irrelevant.
//   - Sub-writers only write documents (Document, PutDocument,
//     InsertFresh, DeleteDocument); they never commit, append oplog
//     entries, write markers, run DDL or relax unique constraints (a
//     relaxed batch is not forked). Sub-writers may run concurrently with
//     each other, not with their parent.
//   - A collection's counters are kept as deltas by each sub-writer
//     (write.dCount, dSize) and multikey flags as sets: Join adds them to
//     the parent's document write of the collection, which writes the
//     counters and flags once, when the parent commits (write.finish).
//   - Join merges the sub-batches into the parent's batch (storage
//     Batch.Merge, which carries the document keys the insert filters
//     and the document cache need) and closes them; Discard closes them
//     without merging. The parent's batch, still empty, is first replaced
//     by a write-only one (storage Engine.NewWriteBatch), so the merge is
//     a copy, not a second indexing of every write: after Join the parent
//     may write (counters, oplog entries, markers) but not read through
//     its batch (a read fails, it does not see stale data). Nothing a sub-writer wrote is visible before the
//     parent commits, nor ever if the parent's function fails.

import (
	"errors"
	"fmt"
	"maps"
)

// PerDocumentWrites reports whether every storage key a document write of
// coll touches belongs to that document (its record and its index
// entries, which end with its _id), so that writes of different documents
// may be prepared by different sub-writers (Fork). Not so for a unique or
// prepareUnique secondary index (the entry's key is the indexed value
// only: two documents moving one value meet on it), nor for capped,
// clustered and time-series collections (kept whole on purpose).
func (c *Collection) PerDocumentWrites() bool {
	if !freshEligible(c) {
		return false
	}
	for _, idx := range c.Indexes() {
		if !idx.IsID() && (idx.Unique || idx.PrepareUnique()) {
			return false
		}
	}
	return true
}

// Fork returns n sub-writers of w (see above). w must be empty and not
// relaxed.
func (w *Writer) Fork(n int) ([]*Writer, error) {
	if w.b.Count() != 0 || len(w.docs) != 0 || len(w.slots) != 0 {
		return nil, errors.New("catalog: fork of a writer that has written")
	}
	if w.relax != nil || w.unlogged || w.sync {
		return nil, errors.New("catalog: fork of a relaxed, unlogged or synced writer")
	}
	subs := make([]*Writer, n)
	for i := range subs {
		subs[i] = &Writer{c: w.c, b: w.c.eng.NewBatch()}
	}
	return subs, nil
}

// Join merges subs (Fork's sub-writers, done writing) into w and closes
// their batches.
func (w *Writer) Join(subs []*Writer) error {
	defer Discard(subs)
	if w.b.Count() != 0 || len(w.docs) != 0 {
		return errors.New("catalog: join into a writer that has written")
	}
	w.b.Close()
	w.b = w.c.eng.NewWriteBatch()
	for i, s := range subs {
		if len(s.slots) != 0 || len(s.publish) != 0 || len(s.ddl) != 0 || s.sync || s.unlogged {
			return fmt.Errorf("catalog: join: sub-writer %d did more than document writes", i)
		}
		if err := w.b.Merge(s.b); err != nil {
			return fmt.Errorf("catalog: join sub-writer %d: %w", i, err)
		}
		for id, sdw := range s.docs {
			if !s.dirty[id] {
				continue // only read
			}
			if err := w.joinCounts(sdw); err != nil {
				return err
			}
		}
	}
	w.read = nil
	return nil
}

// joinCounts adds a sub-writer's counter deltas and multikey flags of one
// collection to w's document write of it.
func (w *Writer) joinCounts(sdw *write) error {
	dw, err := w.docWrite(sdw.coll)
	if err != nil {
		return err
	}
	w.markDirty(dw)
	dw.dCount += sdw.dCount
	dw.dSize += sdw.dSize
	if len(sdw.multikey) > 0 {
		if dw.multikey == nil {
			dw.multikey = map[uint32]bool{}
		}
		maps.Copy(dw.multikey, sdw.multikey)
	}
	return nil
}

// Discard closes the batches of sub-writers that are not joined.
func Discard(subs []*Writer) {
	for _, s := range subs {
		s.b.Close()
	}
}
