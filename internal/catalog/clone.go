package catalog

// Initial sync support: cloning collections and documents from a sync
// source without writing oplog entries, relaxed unique constraints while
// the data is inconsistent, and the durable initial-sync flag.
//
// Invariants (in addition to the package's):
//   - A cloned collection keeps the source's UUID, options and index
//     specs, so later oplog entries (found by UUID) apply to it.
//   - CloneDocuments writes each document with all of its index entries
//     and the collection counters in one storage batch (several documents
//     may share it); no oplog entry is written.
//   - While constraints are relaxed (SetRelaxedConstraints), a unique
//     secondary-index conflict does not fail the write: the conflicting
//     entry is left as it is and the index is marked; update entries that
//     cannot apply to a document (its state may be from the future) are
//     skipped. RepairRelaxedIndexes rebuilds every marked index from the
//     documents once the data is consistent again (MongoDB ignores such
//     conflicts until minValid is reached for the same reason: every
//     transient conflict is resolved by a later entry).
//   - The initial-sync flag is set (synced) before the first cloned write
//     and cleared only after the data is consistent; a node that opens
//     with it set must wipe its replicated data and sync again.

import (
	"fmt"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/storage"
)

// keyInitialSync is the initial-sync flag under the replication prefix.
// TODO(#4): list it in storage/keys.go with the other markers.
var keyInitialSync = []byte{storage.PrefixRepl, 'i', 'n', 'i', 't', 'S', 'y', 'n', 'c'}

// relaxState is the relaxed-constraints mode of initial sync.
type relaxState struct {
	on      atomic.Bool
	rebuild map[uint32]uint32 // index id -> collection id; guarded by writeMu
}

// SetRelaxedConstraints turns initial sync's relaxed mode on or off (see
// the invariants above).
func (c *Catalog) SetRelaxedConstraints(on bool) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.repl.relax.on.Store(on)
}

// relaxed reports whether unique conflicts are tolerated now.
func (c *Catalog) relaxed() bool { return c.repl.relax.on.Load() }

// markRebuild records that idx of coll may hold wrong entries.
// REQUIRES: c.writeMu.
func (c *Catalog) markRebuild(coll *Collection, idx *Index) {
	if c.repl.relax.rebuild == nil {
		c.repl.relax.rebuild = map[uint32]uint32{}
	}
	c.repl.relax.rebuild[idx.ID] = coll.ID
}

// CloneCollection creates db.name as the sync source has it: its UUID,
// options and index specs (the _id_ spec is implied and skipped). No
// oplog entry is written. Errors: NamespaceExists (48).
func (c *Catalog) CloneCollection(db, name string, uuid bson.Binary, opts bson.D, specs []bson.D) (*Collection, error) {
	if err := ValidateCollName(db, name); err != nil {
		return nil, err
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if c.Collection(db, name) != nil || (uuid.Data != nil && c.collectionByUUID(uuid) != nil) {
		return nil, mongoerr.New(mongoerr.NamespaceExists, "Collection %s.%s already exists.", db, name)
	}
	if uuid.Data == nil {
		uuid = newUUID()
	}
	b := c.eng.NewBatch()
	defer b.Close()
	idxs, err := c.clonedIndexes(b, specs)
	if err != nil {
		return nil, fmt.Errorf("catalog: clone %s.%s: %w", db, name, err)
	}
	id, err := c.allocIDLocked(b)
	if err != nil {
		return nil, err
	}
	coll := &Collection{DB: db, Name: name, ID: id, UUID: uuid, Options: opts, cat: c}
	coll.indexes.Store(&idxs)
	if err := putEntry(b, coll, idxs); err != nil {
		return nil, err
	}
	if err := putStats(b, id, 0, 0); err != nil {
		return nil, err
	}
	if _, err := c.eng.Commit(b, false); err != nil {
		return nil, fmt.Errorf("catalog: clone %s: %w", coll.NS(), err)
	}
	c.mu.Lock()
	c.mu.byNS[coll.NS()] = coll
	c.mu.byID[id] = coll
	c.mu.Unlock()
	return coll, nil
}

// clonedIndexes parses specs into indexes with fresh ids, _id_ first.
// REQUIRES: c.writeMu.
func (c *Catalog) clonedIndexes(b *storage.Batch, specs []bson.D) ([]*Index, error) {
	idIdx, _ := parseSpec(idIndexSpec())
	idxs := []*Index{idIdx}
	for _, spec := range specs {
		idx, err := parseSpec(spec)
		if err != nil {
			return nil, err
		}
		if idx.IsID() {
			continue
		}
		if dup, err := conflict(idxs, idx); err != nil {
			return nil, fmt.Errorf("index %s: %w", idx.Name, err)
		} else if dup {
			continue
		}
		if idx.ID, err = c.allocIDLocked(b); err != nil {
			return nil, err
		}
		idxs = append(idxs, idx)
	}
	return idxs, nil
}

// CloneDocuments stores raw documents (each with an _id) in coll with
// their index entries and the counters, in one batch and without oplog
// entries. A document whose _id is present replaces it.
func (c *Catalog) CloneDocuments(coll *Collection, raws [][]byte) error {
	if len(raws) == 0 {
		return nil
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	w, err := c.newWrite(coll)
	if err != nil {
		return err
	}
	defer w.b.Close()
	for _, raw := range raws {
		if err := w.cloneOne(raw); err != nil {
			return fmt.Errorf("catalog: clone into %s: %w", coll.NS(), err)
		}
	}
	publish, err := w.finish()
	if err != nil {
		return err
	}
	if _, err := c.eng.Commit(w.b, false); err != nil {
		return fmt.Errorf("catalog: clone into %s: %w", coll.NS(), err)
	}
	c.mu.Lock()
	publish()
	c.mu.Unlock()
	return nil
}

// cloneOne adds one document (upsert) to the write.
func (w *write) cloneOne(raw []byte) error {
	doc, err := bsonx.Decode(raw)
	if err != nil {
		return fmt.Errorf("decode document: %w", err)
	}
	idKS, _, err := idKey(doc)
	if err != nil {
		return err
	}
	old, oldDoc, err := w.stored(idKS)
	if err != nil {
		return err
	}
	if err := w.b.Set(storage.DocKey(w.coll.ID, idKS), raw); err != nil {
		return err
	}
	if err := w.addEntries(doc, idKS, oldDoc); err != nil {
		return err
	}
	if oldDoc == nil {
		w.dCount++
	}
	w.dSize += int64(len(raw) - len(old))
	return nil
}
