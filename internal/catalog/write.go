package catalog

import (
	"bytes"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/storage"
	"github.com/relaydb/relaydb/internal/storage/keystring"
)

// idKey returns keystring(_id) of doc.
func idKey(doc bson.D) ([]byte, any, error) {
	id, ok := bsonx.Get(doc, "_id")
	if !ok {
		return nil, nil, mongoerr.New(mongoerr.InvalidIdField, "document has no _id")
	}
	return keystring.AppendValue(nil, id, false), id, nil
}

// liveLocked returns the current published value of coll (by id), or
// NamespaceNotFound if it was dropped. REQUIRES: c.writeMu.
func (c *Catalog) liveLocked(coll *Collection) (*Collection, error) {
	c.mu.RLock()
	live := c.mu.byID[coll.ID]
	c.mu.RUnlock()
	if live == nil {
		return nil, mongoerr.New(mongoerr.NamespaceNotFound, "collection %s was dropped", coll.NS())
	}
	return live, nil
}

// write is one document write being assembled under c.writeMu.
type write struct {
	c        *Catalog
	coll     *Collection
	b        *storage.Batch
	multikey map[uint32]bool // indexes that become multikey
	dCount   int64
	dSize    int64
	// relaxed: unique conflicts are tolerated and recorded here (a
	// Writer's RelaxUnique); nil: they are errors.
	relaxed IndexSet
}

// Insert writes doc (which must have an _id), its index entries and its
// oplog entry in one batch. Errors: DuplicateKey (*DuplicateKeyError),
// CannotIndexParallelArrays (171).
func (c *Catalog) Insert(coll *Collection, doc bson.D, opts ...WriteOption) (WriteResult, error) {
	if err := retryableFailPoint(opts); err != nil { // failpoint.go
		return WriteResult{}, err
	}
	raw, err := bsonx.Encode(doc)
	if err != nil {
		return WriteResult{}, fmt.Errorf("catalog: encode document: %w", err)
	}
	if len(raw) > MaxDocSize {
		return WriteResult{}, mongoerr.New(mongoerr.BadValue, "object to insert too large. size in bytes: %d, max size: %d", len(raw), MaxDocSize)
	}
	idKS, id, err := idKey(doc)
	if err != nil {
		return WriteResult{}, err
	}
	return c.writeOne(coll, func(w *write) (*oplog.Entry, error) {
		if err := w.putDoc(idKS, id, raw, nil); err != nil {
			return nil, err
		}
		if err := w.addEntries(doc, idKS, nil); err != nil {
			return nil, err
		}
		w.dCount, w.dSize = 1, int64(len(raw))
		return &oplog.Entry{Op: oplog.OpInsert, NS: w.coll.NS(), UI: &w.coll.UUID, O: doc, ORaw: raw,
			O2: bson.D{{Key: "_id", Value: id}}, Extra: txnFields(opts)}, nil
	})
}

// MaxDocSize is MongoDB's 16 MB limit on a stored document.
const MaxDocSize = 16 * 1024 * 1024

// Update replaces oldDoc by newDoc (same _id), maintaining only the index
// entries whose keys changed; o is the oplog form of the update.
func (c *Catalog) Update(coll *Collection, oldDoc, newDoc bson.D, o bson.D, opts ...WriteOption) (WriteResult, error) {
	if err := retryableFailPoint(opts); err != nil { // failpoint.go
		return WriteResult{}, err
	}
	raw, err := bsonx.Encode(newDoc)
	if err != nil {
		return WriteResult{}, fmt.Errorf("catalog: encode document: %w", err)
	}
	if len(raw) > MaxDocSize {
		return WriteResult{}, mongoerr.New(mongoerr.UpdatedDocumentTooLarge, "Resulting document after update is larger than %d", MaxDocSize)
	}
	return c.changeOne(coll, oldDoc, func(w *write, idKS []byte, id any, old []byte) (*oplog.Entry, error) {
		if err := w.b.SetOwned(storage.DocKey(w.coll.ID, idKS), raw); err != nil { // raw: Update's own encoding
			return nil, err
		}
		if err := w.addEntries(newDoc, idKS, oldDoc); err != nil {
			return nil, err
		}
		w.dSize = int64(len(raw) - len(old))
		return &oplog.Entry{Op: oplog.OpUpdate, NS: w.coll.NS(), UI: &w.coll.UUID, O: o,
			O2: bson.D{{Key: "_id", Value: id}}, Extra: append(txnFields(opts), preImageFields(w.coll, oldDoc, len(old), len(raw))...)}, nil
	})
}

// Delete removes doc (found by its _id), its index entries, and writes the
// oplog entry, in one batch.
func (c *Catalog) Delete(coll *Collection, doc bson.D, opts ...WriteOption) (WriteResult, error) {
	if err := retryableFailPoint(opts); err != nil { // failpoint.go
		return WriteResult{}, err
	}
	return c.changeOne(coll, doc, func(w *write, idKS []byte, id any, old []byte) (*oplog.Entry, error) {
		if err := w.b.Delete(storage.DocKey(w.coll.ID, idKS)); err != nil {
			return nil, err
		}
		if err := w.removeEntries(doc, idKS); err != nil {
			return nil, err
		}
		w.dCount, w.dSize = -1, -int64(len(old))
		return &oplog.Entry{Op: oplog.OpDelete, NS: w.coll.NS(), UI: &w.coll.UUID, O: bson.D{{Key: "_id", Value: id}},
			Extra: append(txnFields(opts), preImageFields(w.coll, doc, len(old), 1024)...)}, nil
	})
}

// writeOne runs build on a new write of coll under c.writeMu and commits
// the batch with the oplog entry build returns.
func (c *Catalog) writeOne(coll *Collection, build func(w *write) (*oplog.Entry, error)) (WriteResult, error) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	w, err := c.newWrite(coll)
	if err != nil {
		return WriteResult{}, err
	}
	defer w.b.Close()
	e, err := build(w)
	if err != nil {
		return WriteResult{}, err
	}
	return w.commit(e)
}

// changeOne is writeOne for a change to the stored document with expect's
// _id, which must still equal expect (see current); build gets the _id's
// keystring, the _id and the stored document.
func (c *Catalog) changeOne(coll *Collection, expect bson.D,
	build func(w *write, idKS []byte, id any, old []byte) (*oplog.Entry, error)) (WriteResult, error) {
	idKS, id, err := idKey(expect)
	if err != nil {
		return WriteResult{}, err
	}
	return c.writeOne(coll, func(w *write) (*oplog.Entry, error) {
		old, err := w.current(idKS, id, expect)
		if err != nil {
			return nil, err
		}
		return build(w, idKS, id, old)
	})
}

// current returns the stored document, which must equal expect: a caller
// computed its update or delete from expect outside the write lock, so a
// concurrent change makes it a WriteConflict (112) the caller retries.
func (w *write) current(idKS []byte, id any, expect bson.D) ([]byte, error) {
	old, ok, err := w.b.Get(storage.DocKey(w.coll.ID, idKS))
	if err != nil || !ok {
		return nil, notFoundOr(err, w.coll, id)
	}
	want, err := bsonx.Encode(expect)
	if err != nil {
		return nil, fmt.Errorf("catalog: encode document: %w", err)
	}
	if !bytes.Equal(old, want) {
		return nil, mongoerr.New(mongoerr.WriteConflict, "WriteConflict: document %v changed concurrently", id)
	}
	return old, nil
}

// ErrDocumentNotFound is returned by Update/Delete when the _id is absent.
var ErrDocumentNotFound = fmt.Errorf("catalog: document not found")

func notFoundOr(err error, coll *Collection, id any) error {
	if err != nil {
		return fmt.Errorf("catalog: read %s: %w", coll.NS(), err)
	}
	return fmt.Errorf("%w: %s _id %v", ErrDocumentNotFound, coll.NS(), id)
}

// newWrite starts a write on coll's live value. REQUIRES: c.writeMu.
func (c *Catalog) newWrite(coll *Collection) (*write, error) {
	live, err := c.liveLocked(coll)
	if err != nil {
		return nil, err
	}
	return &write{c: c, coll: live, b: c.eng.NewBatch()}, nil
}

// putDoc stores a new document, failing with DuplicateKey on _id_. The
// existence probe is skipped when the _id sorts after every _id the
// collection ever stored, or when the collection's key filter lacks it
// (storage.Engine.MayHoldDoc; writeMu keeps other writers out). A
// collection holding more than 100k documents at its first write after a
// start is probed until its filter is filled in the background
// (storage/docfilter_fill.go).
// REQUIRES: the batch holds no other write of coll's documents (Insert's
// batch is new).
func (w *write) putDoc(idKS []byte, id any, raw []byte, _ bson.D) error {
	key := storage.DocKey(w.coll.ID, idKS)
	may, err := w.c.eng.MayHoldDoc(key)
	if err != nil {
		return fmt.Errorf("catalog: check _id of %s: %w", w.coll.NS(), err)
	}
	if may {
		if _, exists, err := w.b.Get(key); err != nil {
			return err
		} else if exists {
			return newDupKey(w.coll, w.coll.Indexes()[0], bson.D{{Key: "_id", Value: id}})
		}
	}
	return w.b.SetOwned(key, raw) // raw: Insert's own encoding
}

// commit writes counters, multikey changes and the oplog entry, commits
// the batch and publishes the new counters, as a Writer's batch (the one
// commit path of every write). REQUIRES: c.writeMu.
func (w *write) commit(e *oplog.Entry) (WriteResult, error) {
	publish, err := w.finish()
	if err != nil {
		return WriteResult{}, err
	}
	wr := &Writer{c: w.c, b: w.b, publish: []func(){publish}}
	return wr.end(wr.appendEntry(e))
}

// finish adds the counters and multikey changes to the batch and returns
// what to publish once it commits.
func (w *write) finish() (func(), error) {
	count, size := w.coll.count.Load()+w.dCount, w.coll.size.Load()+w.dSize
	if err := putStats(w.b, w.coll.ID, count, size); err != nil {
		return nil, err
	}
	var newIdxs []*Index
	if len(w.multikey) > 0 {
		newIdxs = withMultikey(w.coll.Indexes(), w.multikey)
		if err := putEntry(w.b, w.coll, newIdxs); err != nil {
			return nil, err
		}
	}
	return func() {
		w.coll.watch.bump()
		w.coll.count.Store(count)
		w.coll.size.Store(size)
		if newIdxs != nil {
			w.coll.indexes.Store(&newIdxs)
		}
	}, nil
}

// withMultikey returns idxs with the given indexes marked multikey (copies).
func withMultikey(idxs []*Index, ids map[uint32]bool) []*Index {
	out := make([]*Index, len(idxs))
	for i, idx := range idxs {
		if ids[idx.ID] && !idx.Multikey {
			cp := *idx
			cp.Multikey = true
			idx = &cp
		}
		out[i] = idx
	}
	return out
}
