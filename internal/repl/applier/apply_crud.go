package applier

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/bugs"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/update"
)

// insert upserts e.O: a document with the same _id is replaced. In steady
// state (a.fresh) the _id is known to be absent and is not probed.
func (a *entryApply) insert() error {
	e := a.e
	coll := a.resolve(e.NS)
	if coll == nil {
		return a.skip("collection not found")
	}
	raw := []byte(e.ORaw)
	if raw == nil {
		var err error
		if raw, err = bsonx.Encode(e.O); err != nil {
			return fmt.Errorf("encode document: %w", err)
		}
	}
	if bugs.On(bugs.ApplierSkipsInsert) && e.TS.I%7 == 0 {
		e.ORaw = raw
		return nil
	}
	put := a.w.PutDocument
	if a.fresh {
		put = a.w.InsertFresh
	}
	if err := put(coll, e.O, raw); err != nil {
		return err
	}
	e.ORaw = raw // the oplog entry embeds the encoded document
	return nil
}

// update applies e.O ($set/$unset or a replacement) to the document whose
// _id is e.O2._id; a missing document is skipped.
func (a *entryApply) update() error {
	e := a.e
	coll := a.resolve(e.NS)
	if coll == nil {
		return a.skip("collection not found")
	}
	id, ok := bsonx.Get(e.O2, "_id")
	if !ok {
		return fmt.Errorf("update entry has no o2._id")
	}
	_, oldDoc, err := a.w.Document(coll, id)
	if err != nil {
		return err
	}
	if oldDoc == nil {
		return a.skip("document not found")
	}
	newDoc, err := update.ApplyOplog(oldDoc, e.O)
	if err == nil {
		newDoc, err = keepID(newDoc, id)
	}
	if err != nil && a.relaxed { // initial sync: the document may be from the future
		return a.skip("update does not apply during initial sync: " + err.Error())
	}
	if err != nil {
		return err
	}
	raw, err := bsonx.Encode(newDoc)
	if err != nil {
		return fmt.Errorf("encode document: %w", err)
	}
	return a.w.PutDocument(coll, newDoc, raw)
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

// delete deletes the document whose _id is e.O._id, if present.
func (a *entryApply) delete() error {
	coll := a.resolve(a.e.NS)
	if coll == nil {
		return a.skip("collection not found")
	}
	id, ok := bsonx.Get(a.e.O, "_id")
	if !ok {
		return mongoerr.New(mongoerr.InvalidIdField, "document has no _id")
	}
	found, err := a.w.DeleteDocument(coll, id)
	if err != nil || !found {
		return orSkip(err, a, "document not found")
	}
	return nil
}

// orSkip returns err, or skips the entry for why when err is nil.
func orSkip(err error, a *entryApply, why string) error {
	if err != nil {
		return err
	}
	return a.skip(why)
}
