package rollback

// The data changes that undo a former primary's divergent oplog entries,
// through the catalog's write primitive (catalog.Apply). They write NO
// oplog entry: the oplog is truncated to the common point afterwards and
// the sync source's entries are fetched from there. Each call is one
// storage batch under the catalog's write lock, keeping documents, index
// entries, counters and the in-memory catalog consistent, as every other
// write; setDocument's batches are marked unlogged (catalog.Writer.Unlogged),
// which exempts their document writes from the storage invariants check.

import (
	"bytes"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
)

// setDocument makes the document whose _id is id equal doc (nil: delete
// it) in coll, without an oplog entry, and returns the version it
// replaced (nil if there was none). Errors: DuplicateKey when doc collides
// with another document on a unique index.
func setDocument(cat *catalog.Catalog, coll *catalog.Collection, id any, doc bson.D) (bson.D, error) {
	var raw []byte
	if doc != nil {
		var err error
		if raw, err = encodeWithID(doc, id); err != nil {
			return nil, err
		}
	}
	var old bson.D
	_, err := cat.Apply(func(w *catalog.Writer) error {
		w.Unlogged() // the restored state is in the sync source's history
		oldRaw, oldDoc, err := w.Document(coll, id)
		if err != nil {
			return err
		}
		old = oldDoc
		switch {
		case (oldRaw == nil && raw == nil) || bytes.Equal(oldRaw, raw):
			return nil
		case raw == nil:
			_, err = w.DeleteDocument(coll, id)
			return err
		}
		return w.PutDocument(coll, doc, raw)
	})
	if err != nil {
		return nil, fmt.Errorf("set %s _id %v: %w", coll.NS(), id, err)
	}
	return old, nil
}

// encodeWithID encodes doc after checking its _id is id.
func encodeWithID(doc bson.D, id any) ([]byte, error) {
	if got, ok := bsonx.Get(doc, "_id"); !ok || !bsonx.Equal(got, id) {
		return nil, fmt.Errorf("rollback: document %v does not have _id %v", doc, id)
	}
	raw, err := bsonx.Encode(doc)
	if err != nil {
		return nil, fmt.Errorf("rollback: encode document: %w", err)
	}
	return raw, nil
}

// dropCollectionByUUID drops the collection with the given UUID (one the
// divergent history created, whatever its name now), without an oplog
// entry; it reports whether it dropped one.
func dropCollectionByUUID(cat *catalog.Catalog, uuid bson.Binary) (bool, error) {
	var dropped *catalog.Collection
	_, err := cat.Apply(func(w *catalog.Writer) error {
		if dropped = cat.CollectionByUUID(uuid); dropped == nil {
			return nil
		}
		return w.DropCollection(dropped)
	})
	if err != nil {
		return false, fmt.Errorf("drop %s: %w", dropped.NS(), err)
	}
	return dropped != nil, nil
}

// dropIndexOf drops coll's index name, without an oplog entry (an index
// the divergent history built); it reports whether it dropped one. The
// _id_ index cannot be dropped (InvalidOptions).
func dropIndexOf(cat *catalog.Catalog, coll *catalog.Collection, name string) (bool, error) {
	var n int
	_, err := cat.Apply(func(w *catalog.Writer) error {
		var err error
		n, err = w.DropIndexes(coll, []string{name})
		return err
	})
	if err != nil {
		return false, fmt.Errorf("drop index %s of %s: %w", name, coll.NS(), err)
	}
	return n > 0, nil
}
