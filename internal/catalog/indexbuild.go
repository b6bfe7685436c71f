package catalog

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/storage"
)

// buildBatchDocs is how many documents one index-build batch covers.
const buildBatchDocs = 1000

// EnsureCollection returns db.name, creating it (implicitly, as an insert or
// createIndexes does) if absent; created reports whether it did.
func (c *Catalog) EnsureCollection(db, name string) (coll *Collection, created bool, err error) {
	if coll = c.Collection(db, name); coll != nil {
		return coll, false, nil
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	existed := c.Collection(db, name) != nil
	coll, err = c.ensureLocked(db, name)
	return coll, err == nil && !existed, err
}

// CreateIndexes validates specs and builds the new indexes over existing
// documents. before/after count indexes (including _id_). Identical
// existing indexes are no-ops. A unique build over duplicate data fails with
// DuplicateKey and creates nothing.
func (c *Catalog) CreateIndexes(coll *Collection, specs []bson.D) (before, after int, err error) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	live, err := c.liveLocked(coll)
	if err != nil {
		return 0, 0, err
	}
	existing := live.Indexes()
	before = len(existing)
	var add []*Index
	for _, spec := range specs {
		idx, err := parseSpec(inheritCollation(spec, live))
		if err != nil {
			return 0, 0, err
		}
		dup, err := conflict(append(append([]*Index(nil), existing...), add...), idx)
		if err != nil {
			return 0, 0, err
		}
		if !dup {
			add = append(add, idx)
		}
	}
	if len(add) == 0 {
		return before, before, nil
	}
	_, err = c.apply(func(w *Writer) error {
		if err := w.claimDDL(live); err != nil {
			return err
		}
		if err := w.addIndexes(live, add); err != nil {
			return err
		}
		for _, idx := range add {
			o := append(bson.D{{Key: "createIndexes", Value: live.Name}}, idx.Spec...)
			if err := w.appendEntry(cmdEntry(live.DB, &live.UUID, o)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	return before, before + len(add), nil
}

// conflict checks idx against existing indexes: it reports an identical one
// (no-op) or returns IndexKeySpecsConflict / IndexOptionsConflict.
func conflict(existing []*Index, idx *Index) (identical bool, err error) {
	for _, ex := range existing {
		sameKey := keyPatternEqual(ex.Key, idx.Key)
		switch {
		case ex.Name == idx.Name && !sameKey:
			return false, mongoerr.New(mongoerr.IndexKeySpecsConflict,
				"An existing index has the same name as the requested index. Requested index: %v, existing index: %v", idx.Spec, ex.Spec)
		case ex.Name == idx.Name && sameOptions(ex, idx):
			return true, nil
		case ex.Name == idx.Name:
			return false, mongoerr.New(mongoerr.IndexOptionsConflict,
				"An equivalent index already exists with the same name but different options. Requested index: %v, existing index: %v", idx.Spec, ex.Spec)
		case sameKey && (sameOptions(ex, idx) || ex.IsID()):
			return false, mongoerr.New(mongoerr.IndexOptionsConflict,
				"Index already exists with a different name: %s", ex.Name)
		case textConflict(ex, idx, sameKey) != nil:
			return false, textConflict(ex, idx, sameKey)
		}
	}
	return false, nil
}

// addIndexes allocates ids for add, writes their entries for coll's
// existing documents in batches of their own, then adds them to coll's
// catalog entry in w's batch. Entries of an unpublished index are
// invisible (no catalog entry points to its id); on failure they are
// deleted. The caller has claimed coll (claimDDL).
// TODO(#2): a crash mid-build leaves orphan entries under an unpublished id;
// delete index-id ranges no catalog entry names at Open.
func (w *Writer) addIndexes(coll *Collection, add []*Index) error {
	c := w.c
	for _, idx := range add {
		id, err := c.allocIDLocked(w.b)
		if err != nil {
			return err
		}
		idx.ID = id
	}
	multi, err := c.buildEntries(coll, add, w.relaxed)
	if err != nil {
		c.discardEntries(add)
		return err
	}
	idxs := append(append([]*Index(nil), coll.Indexes()...), withMultikey(add, multi)...)
	if err := putEntry(w.b, coll, idxs); err != nil {
		return err
	}
	w.publish = append(w.publish, func() { coll.indexes.Store(&idxs) })
	return nil
}

// buildEntries writes the entries of add for every document of coll;
// relaxed (a relaxed Writer's, else nil) collects the unique conflicts it
// tolerates.
func (c *Catalog) buildEntries(coll *Collection, add []*Index, relaxed IndexSet) (map[uint32]bool, error) {
	w := &write{c: c, coll: coll, b: c.eng.NewBatch(), multikey: map[uint32]bool{}, relaxed: relaxed}
	defer func() { w.b.Close() }()
	p := storage.DocPrefix(coll.ID)
	it, err := c.eng.NewIter(p, storage.PrefixEnd(p))
	if err != nil {
		return nil, err
	}
	defer it.Close()
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		if err := w.indexRaw(add, it.Value(), it.Key()[len(p):]); err != nil {
			return nil, err
		}
		if n++; n%buildBatchDocs == 0 {
			if err := w.flush(); err != nil {
				return nil, err
			}
		}
	}
	if err := it.Error(); err != nil {
		return nil, err
	}
	return w.multikey, w.flush()
}

// indexRaw adds one stored document's entries for the indexes in add.
func (w *write) indexRaw(add []*Index, raw, idKS []byte) error {
	var doc bson.D
	if err := bson.Unmarshal(raw, &doc); err != nil {
		return fmt.Errorf("catalog: decode document: %w", err)
	}
	idKS = append([]byte(nil), idKS...)
	for _, idx := range add {
		keys, multi, err := indexKeys(idx, doc)
		if err != nil {
			return err
		}
		if multi {
			w.multikey[idx.ID] = true
		}
		if err := w.putKeys(idx, keys, idKS); err != nil {
			return err
		}
	}
	return nil
}

// flush commits the build batch so far and starts a new one.
func (w *write) flush() error {
	if w.b.Count() > 0 {
		if _, err := w.c.eng.Commit(w.b, false); err != nil {
			return err
		}
	}
	w.b.Close()
	w.b = w.c.eng.NewBatch()
	return nil
}

// discardEntries deletes whatever a failed build wrote.
func (c *Catalog) discardEntries(add []*Index) {
	b := c.eng.NewBatch()
	defer b.Close()
	for _, idx := range add {
		p := storage.IndexPrefix(idx.ID)
		_ = b.DeleteRange(p, storage.PrefixEnd(p))
	}
	if _, err := c.eng.Commit(b, false); err != nil {
		c.logger.Error("discard failed index build", "err", err)
	}
}

// DropIndexes drops the named indexes ("*" = all but _id_). Errors:
// IndexNotFound (27), InvalidOptions (72) for _id_.
func (c *Catalog) DropIndexes(coll *Collection, names []string) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	live, err := c.liveLocked(coll)
	if err != nil {
		return err
	}
	drop, err := resolveDrop(live.Indexes(), names)
	if err != nil {
		return err
	}
	var gone []string
	var entries []*oplog.Entry
	for _, idx := range live.Indexes() {
		if drop[idx.Name] {
			gone = append(gone, idx.Name)
			entries = append(entries, cmdEntry(live.DB, &live.UUID,
				bson.D{{Key: "dropIndexes", Value: live.Name}, {Key: "index", Value: idx.Name}}))
		}
	}
	_, err = c.apply(func(w *Writer) error {
		if _, err := w.DropIndexes(live, gone); err != nil {
			return err
		}
		for _, e := range entries {
			if err := w.appendEntry(e); err != nil {
				return err
			}
		}
		return nil
	})
	return err
}

// resolveDrop maps names to the set of index names to drop.
func resolveDrop(idxs []*Index, names []string) (map[string]bool, error) {
	drop := map[string]bool{}
	for _, n := range names {
		if n == "*" {
			for _, idx := range idxs {
				if !idx.IsID() {
					drop[idx.Name] = true
				}
			}
			continue
		}
		if n == "_id_" {
			return nil, mongoerr.New(mongoerr.InvalidOptions, "cannot drop _id index")
		}
		found := false
		for _, idx := range idxs {
			found = found || idx.Name == n
		}
		if !found {
			return nil, mongoerr.New(mongoerr.IndexNotFound, "index not found with name [%s]", n)
		}
		drop[n] = true
	}
	return drop, nil
}
