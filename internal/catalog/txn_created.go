package catalog

// Collections a transaction's statement created implicitly (an insert or
// upsert into a missing collection, exec.CollectionForWrite). They are
// created at once, as outside a transaction; an aborted transaction drops
// them again if nothing else uses them, so an abort leaves no collection.
//
// Invariant: DropCreated drops a collection only if it is still the one
// the transaction created (same id), has only its _id_ index and no
// options, holds no document, and no open transaction holds a document
// of it; the drop is an ordinary drop (its own oplog entry).
//
// Differences from MongoDB, TODO(#14): the collection is visible to
// others (and its create in the oplog and change streams) from the
// statement on, not from the commit, and an abort's drop is an oplog
// entry (and change event) of its own; the create is not inside the
// transaction's applyOps entry; create/createIndexes in a transaction
// stay refused; a transaction aborted by a step-down or a shutdown keeps
// the collection (the drop needs the primary).

import (
	"fmt"
	"strings"

	"github.com/relaydb/relaydb/internal/storage"
)

// NoteCreated records that the transaction's statement created coll.
func (t *Txn) NoteCreated(coll *Collection) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.created = append(t.created, coll)
}

// DropCreated drops the collections the transaction created that nothing
// else uses (see the invariant above). Call it after an abort, on the
// primary only (abortTransaction, a failed statement or commit,
// endSessions, the lifetime limit).
func (t *Txn) DropCreated() error {
	t.mu.Lock()
	created := t.created
	t.created = nil
	t.mu.Unlock()
	for _, coll := range created {
		if err := t.c.dropIfUnused(t.locks, coll); err != nil {
			return fmt.Errorf("catalog: drop %s after abort: %w", coll.NS(), err)
		}
	}
	return nil
}

// dropIfUnused drops coll if it is still published, empty, has only the
// _id_ index and no options, and no open transaction holds one of its
// documents.
func (c *Catalog) dropIfUnused(locks *TxnLocks, coll *Collection) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	cur := c.Collection(coll.DB, coll.Name)
	if cur == nil || cur.ID != coll.ID || len(cur.Indexes()) != 1 || len(cur.Options) != 0 {
		return nil
	}
	if locks.holdsAny(storage.DocPrefix(cur.ID)) {
		return nil
	}
	empty, err := c.noKeys(storage.DocPrefix(cur.ID))
	if err != nil || !empty {
		return err
	}
	return c.dropLocked(cur)
}

// holdsAny reports whether an open transaction holds a document key
// starting with prefix.
func (l *TxnLocks) holdsAny(prefix []byte) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k := range l.owner {
		if strings.HasPrefix(k, string(prefix)) {
			return true
		}
	}
	return false
}

// noKeys reports whether the store holds no key starting with prefix.
func (c *Catalog) noKeys(prefix []byte) (bool, error) {
	it, err := c.eng.NewIter(prefix, storage.PrefixEnd(prefix))
	if err != nil {
		return false, err
	}
	defer it.Close()
	return !it.First(), nil
}
