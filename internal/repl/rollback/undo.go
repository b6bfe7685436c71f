package rollback

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/bugs"
	"github.com/relaydb/relaydb/internal/catalog"
)

// refetchAll reads the source's version of every planned document
// (nil: the source has none) outside collections the divergent history
// created, which are dropped whole. Nothing local changes.
// TODO(#4): refetch by collection UUID (a source that renamed the
// collection after the common point answers by its new name).
func (r *run) refetchAll(ctx context.Context, p *plan) ([]bson.D, error) {
	out := make([]bson.D, len(p.docs))
	for i, d := range p.docs {
		if r.skipDoc(p, d) {
			continue
		}
		doc, err := refetch(ctx, r.Source, d.db, d.coll, d.id)
		if err != nil {
			return nil, err
		}
		out[i] = doc
	}
	return out, nil
}

// skipDoc reports whether d is left to its collection's drop.
func (r *run) skipDoc(p *plan, d docRef) bool {
	_, created := p.created[d.uuid]
	return created
}

// undo writes the refetched documents back, then drops the indexes and
// collections the divergent history created, saving every replaced or
// removed document to the rollback files first.
func (r *run) undo(p *plan, fetched []bson.D) error {
	if bugs.On(bugs.RollbackSkipsUndo) {
		return nil
	}
	if err := r.undoDocs(p, fetched); err != nil {
		return err
	}
	for _, ix := range p.indexes {
		if err := r.dropIndex(ix); err != nil {
			return err
		}
	}
	for _, uuid := range p.order {
		if err := r.dropCollection(uuid); err != nil {
			return err
		}
	}
	return nil
}

// undoDocs handles the documents one collection at a time: save the local
// versions the refetch changes, then write the refetched ones.
func (r *run) undoDocs(p *plan, fetched []bson.D) error {
	byNS := map[string][]int{}
	var order []string
	for i, d := range p.docs {
		ns := d.db + "." + d.coll
		if !r.skipDoc(p, d) {
			if byNS[ns] == nil {
				order = append(order, ns)
			}
			byNS[ns] = append(byNS[ns], i)
		}
	}
	for _, ns := range order {
		if err := r.undoCollection(p, byNS[ns], fetched); err != nil {
			return err
		}
	}
	return nil
}

// undoCollection restores the documents p.docs[idx] (one collection).
func (r *run) undoCollection(p *plan, idx []int, fetched []bson.D) error {
	first := p.docs[idx[0]]
	coll := r.Catalog.Collection(first.db, first.coll)
	if coll == nil {
		r.Logger.Warn("rollback: collection is gone; its documents need no undo", "ns", first.db+"."+first.coll)
		return nil
	}
	var saved []bson.D
	for _, i := range idx {
		d := p.docs[i]
		if d.uuid != "" && !bytes.Equal([]byte(d.uuid), coll.UUID.Data) {
			return fmt.Errorf("%w: %s has another UUID than the divergent entries name", ErrUnrecoverable, coll.NS())
		}
		cur, err := current(coll, d.id)
		if err != nil {
			return err
		}
		if cur != nil && !sameDoc(cur, fetched[i]) {
			saved = append(saved, cur)
		}
	}
	if err := r.save(coll.UUID, coll.NS(), saved); err != nil {
		return err
	}
	for _, i := range idx {
		if _, err := setDocument(r.Catalog, coll, p.docs[i].id, fetched[i]); err != nil {
			return setError(err)
		}
	}
	return nil
}

// setError classifies a failed document write: a unique-index conflict
// (the refetched document is newer than an untouched local one) needs an
// initial sync.
// TODO(#4): relax unique constraints until minValid instead, as MongoDB
// does (catalog.Writer.RelaxUnique + RebuildIndexes).
func setError(err error) error {
	var dup *catalog.DuplicateKeyError
	if errors.As(err, &dup) {
		return fmt.Errorf("%w: %v", ErrUnrecoverable, err)
	}
	return fmt.Errorf("rollback: %w", err)
}

// current returns coll's document with _id id, nil if absent.
func current(coll *catalog.Collection, id any) (bson.D, error) {
	raw, ok, err := coll.FindByID(id)
	if err != nil || !ok {
		return nil, err
	}
	doc, err := bsonx.Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("rollback: decode %s _id %v: %w", coll.NS(), id, err)
	}
	return doc, nil
}

// sameDoc reports whether a and b encode identically (nil b: no).
func sameDoc(a, b bson.D) bool {
	if b == nil {
		return false
	}
	ra, err1 := bsonx.Encode(a)
	rb, err2 := bsonx.Encode(b)
	return err1 == nil && err2 == nil && bytes.Equal(ra, rb)
}

// save writes docs to a new rollback file of the collection, if any.
func (r *run) save(uuid bson.Binary, ns string, docs []bson.D) error {
	if len(docs) == 0 {
		return nil
	}
	path, err := writeFile(r.DBPath, uuid, docs, r.now())
	if err != nil {
		return err
	}
	r.files = append(r.files, path)
	r.Logger.Info("rollback: saved undone documents", "ns", ns, "documents", len(docs), "file", path)
	return nil
}

// dropIndex drops an index the divergent history built.
func (r *run) dropIndex(ix indexRef) error {
	coll := r.Catalog.CollectionByUUID(bson.Binary{Subtype: bson.TypeBinaryUUID, Data: []byte(ix.uuid)})
	if coll == nil {
		return nil
	}
	dropped, err := dropIndexOf(r.Catalog, coll, ix.name)
	if err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	if dropped {
		r.Logger.Info("rollback: dropped an index built after the common point", "ns", coll.NS(), "index", ix.name)
	}
	return nil
}

// dropCollection saves every document of a collection the divergent
// history created, then drops it.
func (r *run) dropCollection(uuid bson.Binary) error {
	coll := r.Catalog.CollectionByUUID(uuid)
	if coll == nil {
		return nil
	}
	docs, err := allDocs(coll)
	if err != nil {
		return err
	}
	if err := r.save(uuid, coll.NS(), docs); err != nil {
		return err
	}
	if _, err := dropCollectionByUUID(r.Catalog, uuid); err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	r.Logger.Info("rollback: dropped a collection created after the common point", "ns", coll.NS(), "documents", len(docs))
	return nil
}

// allDocs reads every document of coll.
func allDocs(coll *catalog.Collection) ([]bson.D, error) {
	it := coll.Scan(false)
	defer it.Close()
	var out []bson.D
	for raw, ok := it.Next(); ok; raw, ok = it.Next() {
		doc, err := bsonx.Decode(raw)
		if err != nil {
			return nil, fmt.Errorf("rollback: decode a document of %s: %w", coll.NS(), err)
		}
		out = append(out, doc)
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("rollback: scan %s: %w", coll.NS(), err)
	}
	return out, nil
}
