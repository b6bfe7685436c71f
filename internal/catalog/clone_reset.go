package catalog

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/storage"
)

// InitialSyncFlag reports whether an initial sync started and has not
// finished (the node's replicated data cannot be trusted).
func (c *Catalog) InitialSyncFlag() (bool, error) {
	_, ok, err := c.eng.Get(keyInitialSync)
	if err != nil {
		return false, fmt.Errorf("catalog: read initial-sync flag: %w", err)
	}
	return ok, nil
}

// SetInitialSyncFlag durably sets or clears the initial-sync flag.
func (c *Catalog) SetInitialSyncFlag(on bool) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	b := c.eng.NewBatch()
	defer b.Close()
	var err error
	if on {
		err = b.Set(keyInitialSync, []byte{1})
	} else {
		err = b.Delete(keyInitialSync)
	}
	if err != nil {
		return err
	}
	if _, err := c.eng.Commit(b, true); err != nil {
		return fmt.Errorf("catalog: write initial-sync flag: %w", err)
	}
	return nil
}

// ResetForInitialSync drops every collection outside the local database
// and empties the oplog, without writing oplog entries, and clears
// minValid and appliedThrough: the state of a new member. The caller sets
// the initial-sync flag first so a crash midway is finished by the next
// initial sync.
func (c *Catalog) ResetForInitialSync() error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	var drop []*Collection
	for _, db := range c.Databases() {
		if db != LocalDB {
			drop = append(drop, c.Collections(db)...)
		}
	}
	b := c.eng.NewBatch()
	defer b.Close()
	for _, coll := range drop {
		if err := deleteCollectionData(b, coll); err != nil {
			return err
		}
	}
	for _, key := range [][]byte{storage.KeyMinValid, storage.KeyAppliedThrough, storage.KeyOplogTruncateAfter} {
		if err := b.Delete(key); err != nil {
			return err
		}
	}
	if _, err := c.eng.Commit(b, true); err != nil {
		return fmt.Errorf("catalog: reset for initial sync: %w", err)
	}
	c.mu.Lock()
	for _, coll := range drop {
		c.unpublish(coll)
	}
	c.mu.Unlock()
	c.repl.relax.rebuild = nil
	if _, err := c.log.TruncateAfter(bson.Timestamp{}); err != nil {
		return fmt.Errorf("catalog: reset for initial sync: %w", err)
	}
	return nil
}

// RepairRelaxedIndexes rebuilds, from the documents, every index that had
// a unique conflict while constraints were relaxed, and forgets the
// marks; call it once the data is consistent (constraints enforced again:
// a conflict now is a real error). It returns how many it rebuilt.
func (c *Catalog) RepairRelaxedIndexes() (int, error) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	marked := c.repl.relax.rebuild
	c.repl.relax.rebuild = nil
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
