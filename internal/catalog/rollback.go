package catalog

// Rollback writes (repl/rollback): the data changes that undo a former
// primary's divergent oplog entries. They write NO oplog entry: the oplog
// is truncated to the common point afterwards and the sync source's
// entries are fetched from there. Each call is one storage batch under
// writeMu, keeping documents, index entries, counters and the in-memory
// catalog consistent, as every other write.

import (
	"bytes"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/storage"
)

// RollbackSetDocument makes the document whose _id is id equal doc (nil:
// delete it) in coll, without an oplog entry, and returns the version it
// replaced (nil if there was none). Errors: DuplicateKey when doc collides
// with another document on a unique index.
func (c *Catalog) RollbackSetDocument(coll *Collection, id any, doc bson.D) (bson.D, error) {
	idKS, _, err := idKey(bson.D{{Key: "_id", Value: id}})
	if err != nil {
		return nil, err
	}
	var raw []byte
	if doc != nil {
		if raw, err = rollbackEncode(doc, id); err != nil {
			return nil, err
		}
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	w, err := c.newWrite(coll)
	if err != nil {
		return nil, err
	}
	defer w.b.Close()
	old, oldDoc, err := w.stored(idKS)
	if err != nil || (old == nil && raw == nil) || bytes.Equal(old, raw) {
		return oldDoc, err
	}
	if err := w.setOrDelete(idKS, doc, raw, old, oldDoc); err != nil {
		return nil, err
	}
	publish, err := w.finish()
	if err != nil {
		return nil, err
	}
	if _, err := c.commitLocked(w.b, nil, publish); err != nil {
		return nil, fmt.Errorf("catalog: rollback %s _id %v: %w", coll.NS(), id, err)
	}
	return oldDoc, nil
}

// rollbackEncode encodes doc after checking its _id is id.
func rollbackEncode(doc bson.D, id any) ([]byte, error) {
	if got, ok := bsonx.Get(doc, "_id"); !ok || !bsonx.Equal(got, id) {
		return nil, fmt.Errorf("catalog: rollback: document %v does not have _id %v", doc, id)
	}
	raw, err := bsonx.Encode(doc)
	if err != nil {
		return nil, fmt.Errorf("catalog: rollback: encode document: %w", err)
	}
	return raw, nil
}

// setOrDelete stores raw (doc) in place of old (oldDoc), or deletes old
// when raw is nil, with index entries and counter deltas.
func (w *write) setOrDelete(idKS []byte, doc bson.D, raw, old []byte, oldDoc bson.D) error {
	key := storage.DocKey(w.coll.ID, idKS)
	if raw == nil {
		w.dCount, w.dSize = -1, -int64(len(old))
		if err := w.b.Delete(key); err != nil {
			return err
		}
		return w.removeEntries(oldDoc, idKS)
	}
	if oldDoc == nil {
		w.dCount = 1
	}
	w.dSize = int64(len(raw) - len(old))
	if err := w.b.Set(key, raw); err != nil {
		return err
	}
	return w.addEntries(doc, idKS, oldDoc)
}

// CollectionByUUID returns the collection with the given UUID, nil if none.
func (c *Catalog) CollectionByUUID(uuid bson.Binary) *Collection { return c.collectionByUUID(uuid) }

// RollbackDropCollection drops the collection with the given UUID (one the
// divergent history created, whatever its name now), without an oplog
// entry; it reports whether it dropped one.
func (c *Catalog) RollbackDropCollection(uuid bson.Binary) (bool, error) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	coll := c.collectionByUUID(uuid)
	if coll == nil {
		return false, nil
	}
	b := c.eng.NewBatch()
	if err := deleteCollectionData(b, coll); err != nil {
		b.Close()
		return false, err
	}
	if _, err := c.commitLocked(b, nil, func() { c.unpublish(coll) }); err != nil {
		return false, fmt.Errorf("catalog: rollback: drop %s: %w", coll.NS(), err)
	}
	return true, nil
}

// RollbackDropIndex drops coll's index name, without an oplog entry (an
// index the divergent history built); it reports whether it dropped one.
// The _id_ index cannot be dropped (InvalidOptions).
func (c *Catalog) RollbackDropIndex(coll *Collection, name string) (bool, error) {
	if name == "_id_" {
		return false, mongoerr.New(mongoerr.InvalidOptions, "cannot drop _id index")
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	live, err := c.liveLocked(coll)
	if err != nil {
		return false, err
	}
	var keep []*Index
	var drop *Index
	for _, idx := range live.Indexes() {
		if idx.Name == name {
			drop = idx
			continue
		}
		keep = append(keep, idx)
	}
	if drop == nil {
		return false, nil
	}
	b := c.eng.NewBatch()
	p := storage.IndexPrefix(drop.ID)
	if err := b.DeleteRange(p, storage.PrefixEnd(p)); err != nil {
		b.Close()
		return false, err
	}
	if err := putEntry(b, live, keep); err != nil {
		b.Close()
		return false, err
	}
	if _, err := c.commitLocked(b, nil, func() { live.indexes.Store(&keep) }); err != nil {
		return false, fmt.Errorf("catalog: rollback: drop index %s of %s: %w", name, live.NS(), err)
	}
	return true, nil
}
