package catalog

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/storage"
)

// claimDDL records that coll is changed by DDL in this batch.
func (w *Writer) claimDDL(coll *Collection) error {
	if w.docs[coll.ID] != nil || w.ddl[coll.ID] {
		return fmt.Errorf("catalog: %s changed twice in one batch", coll.NS())
	}
	if w.ddl == nil {
		w.ddl = map[uint32]bool{}
	}
	w.ddl[coll.ID] = true
	return nil
}

// CreateCollection creates db.name with the given UUID (no Data: a new
// one), options and index specs (the _id_ index is implied; its spec, and
// a spec identical to an earlier one, are skipped). It does not validate
// the name. Errors: NamespaceExists (48) when db.name or the UUID exists.
func (w *Writer) CreateCollection(db, name string, uuid bson.Binary, opts bson.D, specs []bson.D) (*Collection, error) {
	c := w.c
	if c.Collection(db, name) != nil || (uuid.Data != nil && c.CollectionByUUID(uuid) != nil) {
		return nil, mongoerr.New(mongoerr.NamespaceExists, "Collection %s.%s already exists.", db, name)
	}
	if uuid.Data == nil {
		uuid = newUUID()
	}
	idxs, err := c.clonedIndexes(w.b, specs)
	if err != nil {
		return nil, fmt.Errorf("catalog: create %s.%s: %w", db, name, err)
	}
	id, err := c.allocIDLocked(w.b)
	if err != nil {
		return nil, err
	}
	coll := &Collection{DB: db, Name: name, ID: id, UUID: uuid, Options: opts, cat: c}
	coll.indexes.Store(&idxs)
	if err := w.claimDDL(coll); err != nil {
		return nil, err
	}
	if err := putEntry(w.b, coll, idxs); err != nil {
		return nil, err
	}
	if err := putStats(w.b, id, 0, 0); err != nil {
		return nil, err
	}
	w.publish = append(w.publish, func() { c.publishNS(coll) })
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

// DropCollection drops coll (its documents, index entries, counters and
// catalog entry).
func (w *Writer) DropCollection(coll *Collection) error {
	if err := w.claimDDL(coll); err != nil {
		return err
	}
	if err := deleteCollectionData(w.b, coll); err != nil {
		return err
	}
	w.publish = append(w.publish, func() { w.c.unpublish(coll) })
	return nil
}

// unpublish removes coll from the maps. REQUIRES: c.mu.
func (c *Catalog) unpublish(coll *Collection) {
	c.unpublishNS(coll)
	delete(c.mu.byID, coll.ID)
}

// RenameCollection moves coll to toDB.toName, keeping its id and UUID;
// an existing collection of that name is dropped (as the primary's
// dropTarget did).
func (w *Writer) RenameCollection(coll *Collection, toDB, toName string) error {
	c := w.c
	target := c.Collection(toDB, toName)
	if target != nil {
		if err := w.DropCollection(target); err != nil {
			return err
		}
	}
	if err := w.claimDDL(coll); err != nil {
		return err
	}
	moved := &Collection{DB: toDB, Name: toName, ID: coll.ID, UUID: coll.UUID, Options: coll.Options, cat: c}
	moved.indexes.Store(coll.indexes.Load())
	moved.count.Store(coll.count.Load())
	moved.size.Store(coll.size.Load())
	if err := putEntry(w.b, moved, moved.Indexes()); err != nil {
		return err
	}
	w.publish = append(w.publish, func() {
		c.unpublishNS(coll)
		c.publishNS(moved)
	})
	return nil
}

// CreateIndex builds the index spec describes over coll's documents (its
// entries are written at once under an id no catalog entry names yet, so
// they stay invisible) and adds it to coll in the batch. It reports false
// when coll has an identical index. Errors: the spec's validation errors,
// IndexKeySpecsConflict / IndexOptionsConflict against an existing
// index, the build's (DuplicateKey).
func (w *Writer) CreateIndex(coll *Collection, spec bson.D) (bool, error) {
	c := w.c
	idx, err := parseSpec(spec)
	if err != nil {
		return false, err
	}
	if coll, err = c.liveLocked(coll); err != nil {
		return false, err
	}
	if dup, err := conflict(coll.Indexes(), idx); err != nil || dup {
		return false, err
	}
	if err := w.claimDDL(coll); err != nil {
		return false, err
	}
	if err := w.addIndexes(coll, []*Index{idx}); err != nil {
		return false, fmt.Errorf("catalog: build index %s of %s: %w", idx.Name, coll.NS(), err)
	}
	return true, nil
}

// DropIndexes drops coll's indexes named in names that exist and returns
// how many it dropped. Errors: InvalidOptions (72) for _id_.
func (w *Writer) DropIndexes(coll *Collection, names []string) (int, error) {
	drop := map[string]bool{}
	for _, n := range names {
		if n == "_id_" {
			return 0, mongoerr.New(mongoerr.InvalidOptions, "cannot drop _id index")
		}
		drop[n] = true
	}
	live, err := w.c.liveLocked(coll)
	if err != nil {
		return 0, err
	}
	var keep, gone []*Index
	for _, idx := range live.Indexes() {
		if drop[idx.Name] {
			gone = append(gone, idx)
		} else {
			keep = append(keep, idx)
		}
	}
	if len(gone) == 0 {
		return 0, nil
	}
	if err := w.claimDDL(live); err != nil {
		return 0, err
	}
	for _, idx := range gone {
		p := storage.IndexPrefix(idx.ID)
		if err := w.b.DeleteRange(p, storage.PrefixEnd(p)); err != nil {
			return 0, err
		}
	}
	if err := putEntry(w.b, live, keep); err != nil {
		return 0, err
	}
	w.publish = append(w.publish, func() { live.indexes.Store(&keep) })
	return len(gone), nil
}
