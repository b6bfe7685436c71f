package exec

// Statements of a multi-document transaction (catalog.Txn): a Retry with
// Txn set routes the statement's reads to the transaction's view (its
// snapshot plus its own writes) and buffers its writes in the
// transaction instead of committing them. Such statements are not
// retryable one by one (no session records); the transaction's commit is.

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
)

// txn returns the statement's transaction, or nil.
func (r *Retry) txn() *catalog.Txn {
	if r == nil {
		return nil
	}
	return r.Txn
}

// view returns the snapshot a statement's reads use (nil: the latest).
func (r *Retry) view() *catalog.Snapshot {
	if t := r.txn(); t != nil {
		return t.View()
	}
	return nil
}

// forMulti is the Retry of a multi-document statement: none (not
// retryable), unless it runs in a transaction.
func (r *Retry) forMulti() *Retry {
	if r.txn() != nil {
		return r
	}
	return nil
}

// insertDoc inserts d, or buffers it in the statement's transaction.
func (e *Engine) insertDoc(col *catalog.Collection, d bson.D, retry *Retry, i int) (catalog.WriteResult, error) {
	if t := retry.txn(); t != nil {
		return catalog.WriteResult{}, t.Insert(col, d)
	}
	return e.cat.Insert(col, d, writeOpts(retry, i)...)
}

// updateDoc replaces old by newDoc, or buffers it.
func (e *Engine) updateDoc(col *catalog.Collection, old, newDoc, o bson.D, retry *Retry, i int) (catalog.WriteResult, error) {
	if t := retry.txn(); t != nil {
		return catalog.WriteResult{}, t.Update(col, old, newDoc, o)
	}
	return e.cat.Update(col, old, newDoc, o, writeOpts(retry, i)...)
}

// deleteDoc deletes old, or buffers it.
func (e *Engine) deleteDoc(col *catalog.Collection, old bson.D, retry *Retry, i int) (catalog.WriteResult, error) {
	if t := retry.txn(); t != nil {
		return catalog.WriteResult{}, t.Delete(col, old)
	}
	return e.cat.Delete(col, old, writeOpts(retry, i)...)
}

// collectionForStmt is CollectionForWrite for a statement: one in a
// transaction that creates the collection records it in the transaction
// (an abort drops it again: catalog/txn_created.go).
func (e *Engine) collectionForStmt(db, coll string, retry *Retry) (*catalog.Collection, error) {
	t := retry.txn()
	if t == nil || e.cat.Collection(db, coll) != nil {
		return e.CollectionForWrite(db, coll)
	}
	c, err := e.cat.CreateCollection(db, coll, nil)
	if err != nil {
		return e.CollectionForWrite(db, coll) // created meanwhile, or its error
	}
	t.NoteCreated(c)
	return c, nil
}
