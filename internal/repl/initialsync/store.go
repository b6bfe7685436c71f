package initialsync

// The writes of an initial sync, through the catalog's write primitive
// (catalog.Apply): the reset to an empty member, cloned collections and
// cloned documents.
//
// Invariants (in addition to the package's):
//   - A cloned collection keeps the source's UUID, options and index
//     specs, so later oplog entries (found by UUID) apply to it.
//   - cloneDocuments writes each document with all of its index entries
//     and the collection counters in one storage batch (several documents
//     may share it); no oplog entry is written, and the batch is marked
//     unlogged (catalog.Writer.Unlogged) for the storage invariants check.
//   - The cloning batches are relaxed (catalog.Writer.RelaxUnique): a
//     unique conflict between documents copied at different moments is
//     resolved by a later entry; the indexes involved are collected in
//     the caller's set and rebuilt at the end.

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/repl/markers"
)

// cloneCollection creates db.name as the sync source has it: its UUID,
// options and index specs (the _id_ spec is implied and skipped). No
// oplog entry is written. Errors: NamespaceExists (48).
func cloneCollection(cat *catalog.Catalog, db, name string, uuid bson.Binary, opts bson.D, specs []bson.D) (*catalog.Collection, error) {
	if err := catalog.ValidateCollName(db, name); err != nil {
		return nil, err
	}
	var coll *catalog.Collection
	_, err := cat.Apply(func(w *catalog.Writer) error {
		var err error
		coll, err = w.CreateCollection(db, name, uuid, opts, specs)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("clone %s.%s: %w", db, name, err)
	}
	return coll, nil
}

// cloneDocuments stores raw documents (each with an _id) in coll with
// their index entries and the counters, in one batch and without oplog
// entries. A document whose _id is present replaces it. With rebuild not
// nil the batch is relaxed: a unique conflict adds its index to rebuild
// instead of failing (catalog.Writer.RelaxUnique).
func cloneDocuments(cat *catalog.Catalog, coll *catalog.Collection, raws [][]byte, rebuild catalog.IndexSet) error {
	if len(raws) == 0 {
		return nil
	}
	_, err := cat.Apply(func(w *catalog.Writer) error {
		w.Unlogged() // the source's later entries bring their history
		if rebuild != nil {
			w.RelaxUnique(rebuild)
		}
		for _, raw := range raws {
			doc, err := bsonx.Decode(raw)
			if err != nil {
				return fmt.Errorf("decode document: %w", err)
			}
			if err := w.PutDocument(coll, doc, raw); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("clone into %s: %w", coll.NS(), err)
	}
	return nil
}

// resetForInitialSync drops every collection outside the local database
// and empties the oplog, without writing oplog entries, and clears
// minValid, appliedThrough and the truncate-after point: the state of a
// new member. The caller sets the initial-sync flag first so a crash
// midway is finished by the next initial sync.
func resetForInitialSync(cat *catalog.Catalog) error {
	_, err := cat.Apply(func(w *catalog.Writer) error {
		for _, db := range cat.Databases() {
			if db == catalog.LocalDB {
				continue
			}
			for _, coll := range cat.Collections(db) {
				if err := w.DropCollection(coll); err != nil {
					return err
				}
			}
		}
		w.Sync()
		return markers.Clear(w)
	})
	if err == nil {
		_, err = cat.Apply(func(w *catalog.Writer) error {
			_, err := w.TruncateOplogAfter(bson.Timestamp{})
			return err
		})
	}
	if err != nil {
		return fmt.Errorf("reset for initial sync: %w", err)
	}
	return nil
}
