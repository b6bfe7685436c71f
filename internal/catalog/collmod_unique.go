package catalog

import (
	"bytes"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/storage"
)

// Converting an index to unique (MongoDB 6.0+), in two steps:
//
//   - collMod {index: {..., prepareUnique: true}} marks the index: a write
//     that would give a key a second document fails with DuplicateKey, while
//     the duplicates already there stay (checkPrepared).
//   - collMod {index: {..., unique: true}} (only on a prepareUnique index)
//     scans the index for keys held by several documents: any is
//     CannotConvertIndexToUnique (359) listing their _ids; otherwise the
//     index's entries are rewritten in the unique format under a new index
//     id, in the batch of the catalog change and its oplog entry
//     (convertUnique). dryRun only scans.
//
// Invariant: a unique index is never prepareUnique (the conversion drops the
// option). The scan runs under the catalog's write lock, so no write can add
// a duplicate between the scan and the rewrite.

// maxViolationBytes bounds the _id keystrings a failed conversion collects
// (MongoDB returns up to 8 MB of _ids).
const maxViolationBytes = 8 << 20

// PrepareUnique reports whether idx refuses new duplicate keys
// (prepareUnique: true in its spec) without being unique yet.
func (idx *Index) PrepareUnique() bool {
	if idx.Unique {
		return false
	}
	v, ok := bsonx.Get(idx.Spec, "prepareUnique")
	return ok && truthy(v)
}

// checkPrepared refuses key for the document idKS when another document
// holds it in the prepareUnique index idx, as seen through the batch.
func (w *write) checkPrepared(idx *Index, key, idKS []byte) error {
	p := append(storage.IndexPrefix(idx.ID), key...)
	it, err := w.b.NewIter(p, storage.PrefixEnd(p))
	if err != nil {
		return err
	}
	defer it.Close()
	// Keystrings are self-delimiting: every entry under p has key exactly,
	// followed by its document's _id; at most two are looked at.
	for ok := it.First(); ok; ok = it.Next() {
		if bytes.Equal(it.Key()[len(p):], idKS) {
			continue
		}
		if w.relaxedConflict(idx) { // initial sync: the data is not consistent yet
			return nil
		}
		val, err := keyValueDoc(idx, key)
		if err != nil {
			return err
		}
		return newDupKey(w.coll, idx, val)
	}
	return it.Error()
}

// convertError is CannotConvertIndexToUnique with its ErrorExtraInfo
// (violations: [{ids: [...]}], one element per duplicated key).
type convertError struct {
	err        *mongoerr.Error
	violations bson.A
}

func (e *convertError) Error() string { return e.err.Error() }

// Unwrap returns the client-visible error.
func (e *convertError) Unwrap() error { return e.err }

// ExtraInfo returns the fields an error reply carries after codeName.
func (e *convertError) ExtraInfo() bson.D {
	return bson.D{{Key: "violations", Value: e.violations}}
}

// dupGroups collects the _id keystrings of documents sharing a key, from a
// non-unique index's entries visited in order.
type dupGroups struct {
	prev   []byte   // the previous entry's key
	cur    [][]byte // _ids of the current key (more than one: a duplicate)
	groups [][][]byte
	bytes  int
}

// add visits one entry; it reports false once the collected _ids reach
// maxViolationBytes.
func (g *dupGroups) add(key, idKS []byte) bool {
	if g.prev != nil && bytes.Equal(key, g.prev) {
		g.cur = append(g.cur, append([]byte(nil), idKS...))
		g.bytes += len(idKS)
		return g.bytes < maxViolationBytes
	}
	g.end()
	g.prev = append(g.prev[:0], key...)
	g.cur = append(g.cur[:0:0], append([]byte(nil), idKS...))
	return true
}

// end closes the current key's group.
func (g *dupGroups) end() {
	if len(g.cur) > 1 {
		g.groups = append(g.groups, g.cur)
	}
	g.cur = nil
}

// scanEntries calls fn(key, idKS) for each entry of the non-unique index
// idx as seen through b, in key order, until fn returns false.
func scanEntries(b *storage.Batch, idx *Index, fn func(key, idKS []byte) (bool, error)) error {
	p := storage.IndexPrefix(idx.ID)
	it, err := b.NewIter(p, storage.PrefixEnd(p))
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		rest := it.Key()[len(p):]
		idKS, err := splitIDFromKey(idx, rest)
		if err != nil {
			return err
		}
		more, err := fn(rest[:len(rest)-len(idKS)], idKS)
		if err != nil || !more {
			return err
		}
	}
	return it.Error()
}

// findDuplicates returns CannotConvertIndexToUnique if documents of coll
// share a key of idx (nil if none), as seen through b.
func findDuplicates(b *storage.Batch, coll *Collection, idx *Index) error {
	g := &dupGroups{}
	err := scanEntries(b, idx, func(key, idKS []byte) (bool, error) { return g.add(key, idKS), nil })
	if err != nil {
		return fmt.Errorf("catalog: scan %s for duplicates: %w", idx.Name, err)
	}
	g.end()
	if len(g.groups) == 0 {
		return nil
	}
	return violationsError(b, coll, g)
}

// violationsError builds the error from the duplicate groups, reading each
// document's _id.
func violationsError(b *storage.Batch, coll *Collection, g *dupGroups) error {
	msg := "Cannot convert the index to unique. Please resolve conflicting documents before running collMod again."
	if g.bytes >= maxViolationBytes {
		msg = "Cannot convert the index to unique. Too many conflicting documents were detected. Please resolve them and rerun collMod."
	}
	out := make(bson.A, 0, len(g.groups))
	for _, grp := range g.groups {
		ids := make(bson.A, 0, len(grp))
		for _, idKS := range grp {
			raw, ok, err := b.Get(storage.DocKey(coll.ID, idKS))
			if err != nil {
				return fmt.Errorf("catalog: read a duplicate's document: %w", err)
			}
			if !ok {
				continue
			}
			var doc struct {
				ID any `bson:"_id"`
			}
			if err := bson.Unmarshal(raw, &doc); err != nil {
				return fmt.Errorf("catalog: decode a duplicate's document: %w", err)
			}
			ids = append(ids, doc.ID)
		}
		out = append(out, bson.D{{Key: "ids", Value: ids}})
	}
	return &convertError{err: mongoerr.New(mongoerr.CannotConvertIndexToUnique, "%s", msg), violations: out}
}

// convertUnique checks old (a prepareUnique index of coll) for duplicates
// and writes its entries in the unique format under a new id, which it
// gives next (old's replacement in the catalog entry); old's entries are
// deleted. All in w's batch. A relaxed Writer (initial sync) converts
// regardless and lists the index for a rebuild.
// TODO(#14): the rewrite is one batch holding every entry of the index;
// a very large index needs batches of its own, as an index build has.
func (w *Writer) convertUnique(coll *Collection, old, next *Index) error {
	if w.relax == nil {
		if err := findDuplicates(w.b, coll, old); err != nil {
			return err
		}
	}
	id, err := w.c.allocIDLocked(w.b)
	if err != nil {
		return err
	}
	next.ID = id
	conflict := false
	err = scanEntries(w.b, old, func(key, idKS []byte) (bool, error) {
		k, v := entryKV(next, key, idKS)
		if _, exists, err := w.b.Get(k); err != nil || exists {
			conflict = conflict || exists
			return err == nil, err
		}
		return true, w.b.Set(k, v)
	})
	if err != nil {
		return fmt.Errorf("catalog: convert %s to unique: %w", old.Name, err)
	}
	if conflict && w.relaxed != nil {
		w.relaxed[IndexRef{Coll: coll.ID, Index: id}] = true
	}
	p := storage.IndexPrefix(old.ID)
	return w.b.DeleteRange(p, storage.PrefixEnd(p))
}

// CheckUniqueConversion is collMod's dryRun: the index mod must be
// {name|keyPattern, unique: true} and nothing else; it reports what the
// conversion would (CannotConvertIndexToUnique with the violations, or the
// validation errors) without changing anything.
func (c *Catalog) CheckUniqueConversion(db, name string, mod bson.D) error {
	r, err := parseIndexMod(mod)
	if err != nil {
		return err
	}
	if r.unique == nil || !*r.unique {
		return mongoerr.New(mongoerr.InvalidOptions, "dry run mode requires an index modification with unique: true.")
	}
	if r.hidden != nil || r.ttl != nil || r.prepareUnique != nil {
		return mongoerr.New(mongoerr.InvalidOptions, "unique: true cannot be combined with any other modification in dry run mode.")
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	coll := c.Collection(db, name)
	if coll == nil {
		return mongoerr.New(mongoerr.NamespaceNotFound, "ns does not exist: %s.%s", db, name)
	}
	i, err := r.find(coll.NS(), coll.Indexes())
	if err != nil {
		return err
	}
	idx := coll.Indexes()[i]
	if idx.Unique || idx.IsID() {
		return nil
	}
	if !idx.PrepareUnique() {
		return errNotPrepared()
	}
	if _, err := parseSpec(setSpecOption(append(bson.D{}, idx.Spec...), "unique", true)); err != nil {
		return err // an index that cannot be unique (wildcard, hashed...): as the conversion answers
	}
	b := c.eng.NewBatch()
	defer b.Close()
	return findDuplicates(b, coll, idx)
}

func errNotPrepared() error {
	return mongoerr.New(mongoerr.InvalidOptions, "Cannot make index unique with 'prepareUnique=false'. Run collMod to set it first.")
}

// uniqueOptions applies r's unique and prepareUnique to old's spec as
// MongoDB does: unique only on a prepareUnique index (res.convert; the
// option is dropped), a no-op on a unique one (and on _id_); prepareUnique
// a no-op on a unique index or at its current value.
func (r *indexModRequest) uniqueOptions(old *Index, spec bson.D, res *IndexMod) (bson.D, error) {
	unique := old.Unique || old.IsID()
	if r.unique != nil && !unique {
		if !old.PrepareUnique() {
			return nil, errNotPrepared()
		}
		res.convert = true
		res.Reply = append(res.Reply, bson.E{Key: "unique_new", Value: true})
		res.Logged = append(res.Logged, bson.E{Key: "unique", Value: true})
		spec = setSpecOption(setSpecOption(spec, "prepareUnique", false), "unique", true)
	}
	if r.prepareUnique != nil && !unique && *r.prepareUnique != old.PrepareUnique() {
		res.Reply = append(res.Reply, bson.E{Key: "prepareUnique_old", Value: old.PrepareUnique()},
			bson.E{Key: "prepareUnique_new", Value: *r.prepareUnique})
		res.Logged = append(res.Logged, bson.E{Key: "prepareUnique", Value: *r.prepareUnique})
		spec = setSpecOption(spec, "prepareUnique", *r.prepareUnique)
	}
	return spec, nil
}

// checkPrepareUniqueAlone refuses a collMod that sets prepareUnique along
// with any other change (changes: the whole collMod; mod: its index doc).
func checkPrepareUniqueAlone(changes, mod bson.D) error {
	r, err := parseIndexMod(mod)
	if err != nil || r.prepareUnique == nil {
		return err
	}
	if r.mods() > 1 || len(changes) > 1 {
		return mongoerr.New(mongoerr.InvalidOptions, "prepareUnique cannot be combined with any other modification.")
	}
	return nil
}
