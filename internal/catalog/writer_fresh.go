package catalog

// InsertFresh: storing a document whose _id the caller knows is absent,
// without reading for an existing one (steady-state oplog application).
//
// Invariants:
//   - InsertFresh writes exactly what PutDocument writes for a document
//     whose _id is absent: the document, all its index entries (unique
//     secondary indexes still checked), count +1 and size +len(raw).
//   - Only the caller's knowledge makes it correct: a document already
//     present would be overwritten without its old index entries being
//     removed and be counted twice. In -tags invariants builds InsertFresh
//     reads the _id anyway and panics (invariants.Violated) if a document
//     is there, so tests catch a wrong use.
//   - Where that knowledge is doubtful InsertFresh takes PutDocument's
//     probing path itself: relaxed batches (initial sync), and capped,
//     clustered and time-series collections.

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/invariants"
	"github.com/relaydb/relaydb/internal/storage"
)

// InsertFresh stores doc (which has an _id) in coll, which the caller
// guarantees holds no document with that _id as the batch sees it (see
// above). raw is doc's encoding (nil: InsertFresh encodes it). Errors as
// PutDocument's.
func (w *Writer) InsertFresh(coll *Collection, doc bson.D, raw []byte) error {
	if w.relax != nil || !freshEligible(coll) {
		return w.PutDocument(coll, doc, raw)
	}
	dw, err := w.docWrite(coll)
	if err != nil {
		return err
	}
	idKS, id, err := idKey(doc)
	if err != nil {
		return err
	}
	if raw == nil {
		if raw, err = bsonx.Encode(doc); err != nil {
			return fmt.Errorf("catalog: encode document: %w", err)
		}
	}
	if invariants.Enabled {
		checkFresh(dw, idKS, id)
	}
	w.read = nil // the read cache may not describe the batch after this write
	w.markDirty(dw)
	if err := dw.b.Set(storage.DocKey(dw.coll.ID, idKS), raw); err != nil {
		return err
	}
	if err := dw.addEntries(doc, idKS, nil); err != nil {
		return err
	}
	dw.dCount++
	dw.dSize += int64(len(raw))
	return nil
}

// freshEligible reports whether coll's inserts may skip the probe: not
// capped, clustered nor time-series (their write paths are kept as they
// are; TODO(#15): decide them one by one).
func freshEligible(coll *Collection) bool {
	for _, k := range []string{"capped", "clusteredIndex", "timeseries"} {
		if v, ok := bsonx.Get(coll.Options, k); ok && v != false {
			return false
		}
	}
	return true
}

// checkFresh is InsertFresh's invariants check: the _id really is absent.
func checkFresh(dw *write, idKS []byte, id any) {
	_, ok, err := dw.b.Get(storage.DocKey(dw.coll.ID, idKS))
	if err == nil && ok {
		invariants.Violated("catalog: InsertFresh of %s _id %v, which is present", dw.coll.NS(), id)
	}
}
