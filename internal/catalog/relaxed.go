package catalog

// Relaxed unique constraints, the mode initial sync runs the write
// primitive in while its data is inconsistent (repl/initialsync).
//
// Invariants:
//   - While constraints are relaxed, a unique secondary-index conflict does
//     not fail a write: the conflicting entry is left as it is and the
//     index is marked. RepairRelaxedIndexes rebuilds every marked index
//     from the documents once the data is consistent again (MongoDB
//     ignores such conflicts until minValid is reached for the same
//     reason: every transient conflict is resolved by a later entry).
//   - The marks are kept under writeMu; turning the mode on forgets the
//     marks of an earlier relaxed period (its data was reset).
//
// TODO(#10): this is catalog-wide state only initial sync uses; a per-batch
// option of Apply that reports the conflicting indexes to the caller
// (say Writer.RelaxUnique, the indexes in the WriteResult) would move the
// marks to repl/initialsync. It needs repl/applier to take that option for
// the batches it applies during initial sync (an ApplyBatch option that
// repl/sync_initial.go passes through initialsync.Options.Apply, which
// also replaces the applier's RelaxedConstraints() check in apply_crud.go),
// so it waits for the applier's rewrite.

import (
	"fmt"
	"sync/atomic"

	"github.com/relaydb/relaydb/internal/storage"
)

// relaxState is the relaxed-constraints mode.
type relaxState struct {
	on      atomic.Bool
	rebuild map[uint32]uint32 // index id -> collection id; guarded by writeMu
}

// SetRelaxedConstraints turns the relaxed mode on or off (see above).
func (c *Catalog) SetRelaxedConstraints(on bool) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if on && !c.relax.on.Load() {
		c.relax.rebuild = nil
	}
	c.relax.on.Store(on)
}

// RelaxedConstraints reports whether unique conflicts are tolerated now.
func (c *Catalog) RelaxedConstraints() bool { return c.relax.on.Load() }

// markRebuild records that idx of coll may hold wrong entries.
// REQUIRES: c.writeMu.
func (c *Catalog) markRebuild(coll *Collection, idx *Index) {
	if c.relax.rebuild == nil {
		c.relax.rebuild = map[uint32]uint32{}
	}
	c.relax.rebuild[idx.ID] = coll.ID
}

// RepairRelaxedIndexes rebuilds, from the documents, every index that had
// a unique conflict while constraints were relaxed, and forgets the
// marks; call it once the data is consistent (constraints enforced again:
// a conflict now is a real error). It returns how many it rebuilt.
func (c *Catalog) RepairRelaxedIndexes() (int, error) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	marked := c.relax.rebuild
	c.relax.rebuild = nil
	n := 0
	for idxID, collID := range marked {
		c.mu.RLock()
		coll := c.mu.byID[collID]
		c.mu.RUnlock()
		if coll == nil {
			continue // dropped since
		}
		for _, idx := range coll.Indexes() {
			if idx.ID == idxID && !idx.IsID() {
				if err := c.rebuildIndexLocked(coll, idx); err != nil {
					return n, fmt.Errorf("catalog: rebuild %s %s: %w", coll.NS(), idx.Name, err)
				}
				n++
			}
		}
	}
	return n, nil
}

// rebuildIndexLocked deletes idx's entries and writes them again from the
// documents. REQUIRES: c.writeMu.
func (c *Catalog) rebuildIndexLocked(coll *Collection, idx *Index) error {
	b := c.eng.NewBatch()
	p := storage.IndexPrefix(idx.ID)
	err := b.DeleteRange(p, storage.PrefixEnd(p))
	if err == nil {
		_, err = c.eng.Commit(b, false)
	}
	b.Close()
	if err != nil {
		return err
	}
	multi, err := c.buildEntries(coll, []*Index{idx})
	if err != nil || !multi[idx.ID] || idx.Multikey {
		return err
	}
	idxs := withMultikey(coll.Indexes(), multi)
	b = c.eng.NewBatch()
	defer b.Close()
	if err := putEntry(b, coll, idxs); err != nil {
		return err
	}
	if _, err := c.eng.Commit(b, false); err != nil {
		return err
	}
	coll.indexes.Store(&idxs)
	return nil
}
