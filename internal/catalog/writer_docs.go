package catalog

import (
	"bytes"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/storage"
	"github.com/relaydb/relaydb/internal/storage/keystring"
)

// readCache is the document Writer.Document read last, so a following
// PutDocument or DeleteDocument of it does not read and decode it again.
type readCache struct {
	collID uint32
	idKS   []byte
	raw    []byte
	doc    bson.D
}

// Document returns coll's document whose _id is id as the batch sees it
// (earlier writes of the batch included), raw and decoded; both nil if
// there is none.
func (w *Writer) Document(coll *Collection, id any) ([]byte, bson.D, error) {
	dw, err := w.docWrite(coll)
	if err != nil {
		return nil, nil, err
	}
	idKS := keystring.AppendValue(nil, id, false)
	raw, doc, err := dw.stored(idKS)
	if err != nil {
		return nil, nil, fmt.Errorf("catalog: read %s _id %v: %w", coll.NS(), id, err)
	}
	w.read = &readCache{collID: dw.coll.ID, idKS: idKS, raw: raw, doc: doc}
	return raw, doc, nil
}

// PutDocument stores doc (which has an _id) in coll, replacing the
// document with that _id if there is one: only the index entries whose
// keys change are rewritten, and the counters follow. raw is doc's
// encoding (nil: PutDocument encodes it). Errors: DuplicateKey
// (*DuplicateKeyError) on a unique secondary index unless the batch is
// relaxed (RelaxUnique), CannotIndexParallelArrays (171).
func (w *Writer) PutDocument(coll *Collection, doc bson.D, raw []byte) error {
	dw, err := w.docWrite(coll)
	if err != nil {
		return err
	}
	idKS, _, err := idKey(doc)
	if err != nil {
		return err
	}
	if raw == nil {
		if raw, err = bsonx.Encode(doc); err != nil {
			return fmt.Errorf("catalog: encode document: %w", err)
		}
	}
	old, oldDoc, err := w.current(dw, idKS)
	if err != nil {
		return err
	}
	w.markDirty(dw)
	if err := dw.b.Set(storage.DocKey(dw.coll.ID, idKS), raw); err != nil {
		return err
	}
	if err := dw.addEntries(doc, idKS, oldDoc); err != nil {
		return err
	}
	if oldDoc == nil {
		dw.dCount++
	}
	dw.dSize += int64(len(raw) - len(old))
	return nil
}

// DeleteDocument removes coll's document whose _id is id and its index
// entries; it reports whether there was one.
func (w *Writer) DeleteDocument(coll *Collection, id any) (bool, error) {
	dw, err := w.docWrite(coll)
	if err != nil {
		return false, err
	}
	idKS := keystring.AppendValue(nil, id, false)
	old, oldDoc, err := w.current(dw, idKS)
	if err != nil || oldDoc == nil {
		return false, err
	}
	w.markDirty(dw)
	if err := dw.b.Delete(storage.DocKey(dw.coll.ID, idKS)); err != nil {
		return false, err
	}
	if err := dw.removeEntries(oldDoc, idKS); err != nil {
		return false, err
	}
	dw.dCount--
	dw.dSize -= int64(len(old))
	return true, nil
}

// markDirty records that dw's collection has a document change to finish.
func (w *Writer) markDirty(dw *write) {
	if w.dirty == nil {
		w.dirty = map[uint32]bool{}
	}
	w.dirty[dw.coll.ID] = true
}

// current returns the stored document with keystring(_id) idKS, from the
// read cache when Document just read it, and empties the cache (the
// caller is about to change that document).
func (w *Writer) current(dw *write, idKS []byte) ([]byte, bson.D, error) {
	rc := w.read
	w.read = nil
	if rc != nil && rc.collID == dw.coll.ID && bytes.Equal(rc.idKS, idKS) {
		return rc.raw, rc.doc, nil
	}
	raw, doc, err := dw.stored(idKS)
	if err != nil {
		return nil, nil, fmt.Errorf("catalog: read %s: %w", dw.coll.NS(), err)
	}
	return raw, doc, nil
}

// docWrite returns the document write of coll's live value in this batch,
// starting it on first use.
func (w *Writer) docWrite(coll *Collection) (*write, error) {
	if dw := w.docs[coll.ID]; dw != nil {
		return dw, nil
	}
	if w.ddl[coll.ID] {
		return nil, fmt.Errorf("catalog: %s: document writes and DDL in one batch", coll.NS())
	}
	live, err := w.c.liveLocked(coll)
	if err != nil {
		return nil, err
	}
	if w.docs == nil {
		w.docs = map[uint32]*write{}
	}
	dw := &write{c: w.c, coll: live, b: w.b, relaxed: w.relaxed}
	w.docs[coll.ID] = dw
	return dw, nil
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
