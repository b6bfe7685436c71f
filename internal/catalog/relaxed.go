package catalog

// Relaxed unique constraints, a per-batch option of the write primitive
// (Writer.RelaxUnique) that initial sync takes while its data is
// inconsistent (repl/initialsync: its cloning batches and, through
// repl/applier, the batches of the entries it applies).
//
// Invariants:
//   - In a relaxed batch a unique secondary-index conflict does not fail
//     the write: the conflicting entry is left as it is and the index is
//     added, once the batch commits, to the caller's IndexSet. The caller
//     rebuilds those indexes from the documents (RebuildIndexes) once the
//     data is consistent (MongoDB ignores such conflicts until minValid
//     is reached for the same reason: every transient conflict is
//     resolved by a later entry).
//   - Every other batch (the primary's writes, steady-state application,
//     rollback, index rebuilds) enforces unique constraints: the option
//     is the batch's, not the catalog's.

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/relaydb/relaydb/internal/storage"
)

// IndexRef names an index of a collection by their catalog ids.
type IndexRef struct{ Coll, Index uint32 }

// IndexSet is a set of indexes, such as the unique indexes relaxed
// batches left with conflicts (RelaxUnique, RebuildIndexes).
type IndexSet map[IndexRef]bool

// RelaxUnique makes the batch tolerate unique secondary-index conflicts
// (see above): once it commits, the indexes it left with conflicts are
// added to rebuild, which must not be nil. Call it before the batch's
// writes.
func (w *Writer) RelaxUnique(rebuild IndexSet) {
	w.relax = rebuild
	if w.relaxed == nil {
		w.relaxed = IndexSet{}
	}
	for _, dw := range w.docs {
		dw.relaxed = w.relaxed
	}
}

// relaxedConflict records, in a relaxed write, that idx of w's collection
// has a unique conflict; it reports false (the conflict is an error) if
// the write is not relaxed.
func (w *write) relaxedConflict(idx *Index) bool {
	if w.relaxed == nil {
		return false
	}
	w.relaxed[IndexRef{Coll: w.coll.ID, Index: idx.ID}] = true
	return true
}

// RebuildIndexes rebuilds, from the documents, each index of set that
// still exists (a unique index relaxed batches left with conflicts); call
// it once the data is consistent (constraints are enforced: a conflict
// now is a real error). It returns how many it rebuilt.
func (c *Catalog) RebuildIndexes(set IndexSet) (int, error) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	refs := make([]IndexRef, 0, len(set))
	for r := range set {
		refs = append(refs, r)
	}
	slices.SortFunc(refs, func(a, b IndexRef) int {
		return cmp.Or(cmp.Compare(a.Coll, b.Coll), cmp.Compare(a.Index, b.Index))
	})
	n := 0
	for _, r := range refs {
		c.mu.RLock()
		coll := c.mu.byID[r.Coll]
		c.mu.RUnlock()
		if coll == nil {
			continue // dropped since
		}
		for _, idx := range coll.Indexes() {
			if idx.ID == r.Index && !idx.IsID() {
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
	multi, err := c.buildEntries(coll, []*Index{idx}, nil)
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
