package catalog

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/storage"
	"github.com/relaydb/relaydb/internal/update"
)

// applyInsert upserts e.O: a document with the same _id is replaced.
func (c *Catalog) applyInsert(e *oplog.Entry) error {
	coll := c.resolve(e.NS, e.UI)
	if coll == nil {
		return c.skip(e, "collection not found")
	}
	raw := []byte(e.ORaw)
	if raw == nil {
		var err error
		if raw, err = bsonx.Encode(e.O); err != nil {
			return fmt.Errorf("encode document: %w", err)
		}
	}
	idKS, _, err := idKey(e.O)
	if err != nil {
		return err
	}
	w := &write{c: c, coll: coll, b: c.eng.NewBatch()}
	defer w.b.Close()
	old, oldDoc, err := w.stored(idKS)
	if err != nil {
		return err
	}
	if err := w.b.Set(storage.DocKey(coll.ID, idKS), raw); err != nil {
		return err
	}
	if err := w.addEntries(e.O, idKS, oldDoc); err != nil {
		return err
	}
	if oldDoc == nil {
		w.dCount = 1
	}
	w.dSize = int64(len(raw) - len(old))
	e.ORaw = raw // the oplog entry embeds the encoded document
	return w.commitApplied(e)
}

// applyUpdate applies e.O ($set/$unset or a replacement) to the document
// whose _id is e.O2._id; a missing document is skipped.
func (c *Catalog) applyUpdate(e *oplog.Entry) error {
	coll := c.resolve(e.NS, e.UI)
	if coll == nil {
		return c.skip(e, "collection not found")
	}
	id, ok := bsonx.Get(e.O2, "_id")
	if !ok {
		return fmt.Errorf("update entry has no o2._id")
	}
	w := &write{c: c, coll: coll, b: c.eng.NewBatch()}
	defer w.b.Close()
	idKS, _, _ := idKey(bson.D{{Key: "_id", Value: id}})
	old, oldDoc, err := w.stored(idKS)
	if err != nil {
		return err
	}
	if oldDoc == nil {
		return c.skip(e, "document not found")
	}
	newDoc, err := update.ApplyOplog(oldDoc, e.O)
	if err == nil {
		newDoc, err = keepID(newDoc, id)
	}
	if err != nil && c.relaxed() { // initial sync: the document may be from the future
		return c.skip(e, "update does not apply during initial sync: "+err.Error())
	}
	if err != nil {
		return err
	}
	raw, err := bsonx.Encode(newDoc)
	if err != nil {
		return fmt.Errorf("encode document: %w", err)
	}
	if err := w.b.Set(storage.DocKey(coll.ID, idKS), raw); err != nil {
		return err
	}
	if err := w.addEntries(newDoc, idKS, oldDoc); err != nil {
		return err
	}
	w.dSize = int64(len(raw) - len(old))
	return w.commitApplied(e)
}

// keepID makes sure a replacement keeps the document's _id (first).
func keepID(doc bson.D, id any) (bson.D, error) {
	got, ok := bsonx.Get(doc, "_id")
	if !ok {
		return append(bson.D{{Key: "_id", Value: id}}, doc...), nil
	}
	if !bsonx.Equal(got, id) {
		return nil, fmt.Errorf("update changes _id from %v to %v", id, got)
	}
	return doc, nil
}

// applyDelete deletes the document whose _id is e.O._id, if present.
func (c *Catalog) applyDelete(e *oplog.Entry) error {
	coll := c.resolve(e.NS, e.UI)
	if coll == nil {
		return c.skip(e, "collection not found")
	}
	idKS, _, err := idKey(e.O)
	if err != nil {
		return err
	}
	w := &write{c: c, coll: coll, b: c.eng.NewBatch()}
	defer w.b.Close()
	old, oldDoc, err := w.stored(idKS)
	if err != nil {
		return err
	}
	if oldDoc == nil {
		return c.skip(e, "document not found")
	}
	if err := w.b.Delete(storage.DocKey(coll.ID, idKS)); err != nil {
		return err
	}
	if err := w.removeEntries(oldDoc, idKS); err != nil {
		return err
	}
	w.dCount, w.dSize = -1, -int64(len(old))
	return w.commitApplied(e)
}

// stored returns the stored document with keystring(_id) idKS, raw and
// decoded; both nil if absent.
func (w *write) stored(idKS []byte) ([]byte, bson.D, error) {
	raw, ok, err := w.b.Get(storage.DocKey(w.coll.ID, idKS))
	if err != nil || !ok {
		return nil, nil, err
	}
	doc, err := bsonx.Decode(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("decode stored document: %w", err)
	}
	return raw, doc, nil
}

// commitApplied finishes a document write and commits it with e.
func (w *write) commitApplied(e *oplog.Entry) error {
	publish, err := w.finish()
	if err != nil {
		return err
	}
	return w.c.commitApplied(w.b, e, publish)
}
