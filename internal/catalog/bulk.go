package catalog

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/oplog"
)

// PutDocuments writes documents (each with an _id) into coll in one
// batch, each replacing the document with its _id if there is one, with
// an insert oplog entry each (a secondary's insert replaces as well). It
// is a chunk migration's recipient writing documents of a range it does
// not own yet: no unique _id check, no update semantics. Errors as
// Writer.PutDocument's; nothing is written on error.
func (c *Catalog) PutDocuments(coll *Collection, docs []bson.D) (WriteResult, error) {
	return c.Apply(func(w *Writer) error {
		for _, d := range docs {
			raw, err := bsonx.Encode(d)
			if err != nil {
				return fmt.Errorf("catalog: encode document: %w", err)
			}
			if len(raw) > MaxDocSize {
				return fmt.Errorf("catalog: document of %d bytes is over the maximum %d", len(raw), MaxDocSize)
			}
			_, id, err := idKey(d)
			if err != nil {
				return err
			}
			if err := w.PutDocument(coll, d, raw); err != nil {
				return err
			}
			e := &oplog.Entry{Op: oplog.OpInsert, NS: coll.NS(), UI: &coll.UUID, O: d, ORaw: raw, O2: bson.D{{Key: "_id", Value: id}}, Extra: FromMigrateFields()}
			if err := w.appendEntry(e); err != nil {
				return err
			}
		}
		return nil
	})
}

// FromMigrateFields mark the oplog entries of a chunk migration's writes
// (fromMigrate: true, as MongoDB's): change streams do not report them.
func FromMigrateFields() bson.D { return bson.D{{Key: "fromMigrate", Value: true}} }

// DeleteDocuments deletes coll's documents with the given _ids in one
// batch, with a delete oplog entry for each one that existed (a chunk
// migration's recipient applying the donor's deletes).
func (c *Catalog) DeleteDocuments(coll *Collection, ids []any) (WriteResult, error) {
	_, res, err := c.DeleteMigrated(coll, ids)
	return res, err
}

// DeleteMigrated is DeleteDocuments also reporting how many documents
// existed (the range deleter's batches).
func (c *Catalog) DeleteMigrated(coll *Collection, ids []any) (int, WriteResult, error) {
	n := 0
	res, err := c.Apply(func(w *Writer) error {
		n = 0
		for _, id := range ids {
			found, err := w.DeleteDocument(coll, id)
			if err != nil || !found {
				if err != nil {
					return err
				}
				continue
			}
			n++
			e := &oplog.Entry{Op: oplog.OpDelete, NS: coll.NS(), UI: &coll.UUID, O: bson.D{{Key: "_id", Value: id}}, Extra: FromMigrateFields()}
			if err := w.appendEntry(e); err != nil {
				return err
			}
		}
		return nil
	})
	return n, res, err
}
