package catalog

import (
	"bytes"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/oplog"
)

// TxnNS is the namespace of a transaction's applyOps entry.
const TxnNS = "admin.$cmd"

// Commit writes the transaction's documents and its one applyOps entry
// (with extra: lsid, txnNumber, prevOpTime) in one batch, after checking
// under the write lock that no document it wrote changed since its
// snapshot (WriteConflict). A transaction that wrote nothing commits
// nothing (zero WriteResult). It does not Release the transaction.
func (t *Txn) Commit(extra bson.D) (WriteResult, error) {
	if len(t.ops) == 0 {
		return WriteResult{}, nil
	}
	return t.c.Apply(func(w *Writer) error {
		for _, ks := range t.order {
			d := t.touched[ks]
			latest, ok, err := w.b.Get(d.key)
			if err != nil {
				return fmt.Errorf("catalog: commit: read %s: %w", d.coll.NS(), err)
			}
			if ok != d.had || !bytes.Equal(latest, d.base) {
				return errWriteConflict()
			}
		}
		for _, ks := range t.order {
			if err := t.commitDoc(w, t.touched[ks]); err != nil {
				return err
			}
		}
		e := &oplog.Entry{Op: oplog.OpCommand, NS: TxnNS, O: bson.D{{Key: "applyOps", Value: t.ops}}, Extra: extra}
		return w.appendEntry(e)
	})
}

// commitDoc writes d's final state (the overlay's) to the batch.
func (t *Txn) commitDoc(w *Writer, d *txnDoc) error {
	val, _ := t.ov.Lookup(d.key)
	if val == nil {
		if !d.had {
			return nil // inserted and deleted by the transaction
		}
		_, err := w.DeleteDocument(d.coll, d.id)
		return err
	}
	doc, err := bsonx.Decode(val)
	if err != nil {
		return fmt.Errorf("catalog: commit: decode document: %w", err)
	}
	return w.PutDocument(d.coll, doc, val)
}
