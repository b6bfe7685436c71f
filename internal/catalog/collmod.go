package catalog

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// CollMod merges changes into db.name's options (a key already there is
// replaced, a new one appended; index: {...} changes an index instead,
// modIndexes) and logs {collMod: name, <changes>} so secondaries apply the
// same change. The caller validates the other changes.
// Errors: NamespaceNotFound (26), modIndexes'.
func (c *Catalog) CollMod(db, name string, changes bson.D) (*Collection, error) {
	out, _, err := c.CollModIndex(db, name, changes)
	return out, err
}

// CollModIndex is CollMod that also returns the outcome of an index
// change (nil without one).
func (c *Catalog) CollModIndex(db, name string, changes bson.D) (*Collection, *IndexMod, error) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	coll := c.Collection(db, name)
	if coll == nil {
		return nil, nil, mongoerr.New(mongoerr.NamespaceNotFound, "ns does not exist: %s.%s", db, name)
	}
	var out *Collection
	var mod *IndexMod
	_, err := c.apply(func(w *Writer) error {
		var err error
		if out, mod, err = w.CollMod(coll, changes); err != nil {
			return err
		}
		o := bson.D{{Key: "collMod", Value: name}}
		for _, ch := range changes {
			if ch.Key == "index" && len(mod.Logged) < 2 {
				continue // nothing changes in the index (MongoDB logs no index either)
			}
			if ch.Key == "index" {
				ch.Value = mod.Logged
			}
			o = append(o, ch)
		}
		return w.appendEntry(cmdEntry(db, &coll.UUID, o))
	})
	return out, mod, err
}

// CollMod applies a collMod's changes to coll in the batch: index: {...}
// changes one index (modIndexes), the others merge into its options.
func (w *Writer) CollMod(coll *Collection, changes bson.D) (*Collection, *IndexMod, error) {
	opts := make(bson.D, 0, len(changes))
	idxs := coll.Indexes()
	var mod *IndexMod
	for _, ch := range changes {
		if ch.Key != "index" {
			opts = append(opts, ch)
			continue
		}
		doc, ok := ch.Value.(bson.D)
		if !ok {
			return nil, nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'collMod.index' is the wrong type, expected type 'object'")
		}
		if err := checkPrepareUniqueAlone(changes, doc); err != nil { // collmod_unique.go
			return nil, nil, err
		}
		var err error
		if idxs, mod, err = modIndexes(coll.NS(), idxs, doc); err != nil {
			return nil, nil, err
		}
	}
	if mod != nil && mod.convert {
		if err := w.convertUnique(coll, mod.old, mod.next); err != nil {
			return nil, nil, err
		}
	}
	out, err := w.setOptions(coll, MergeOptions(coll.Options, opts), idxs)
	return out, mod, err
}

// MergeOptions returns opts with each of changes replacing the option of
// its name or appended; opts is not modified.
func MergeOptions(opts, changes bson.D) bson.D {
	out := append(bson.D{}, opts...)
	for _, ch := range changes {
		replaced := false
		for i := range out {
			if out[i].Key == ch.Key {
				out[i].Value, replaced = ch.Value, true
			}
		}
		if !replaced {
			out = append(out, ch)
		}
	}
	return out
}

// SetOptions replaces coll's options in the batch, keeping its id, UUID,
// indexes and counters; it publishes a new *Collection (exported fields of
// a published one never change).
func (w *Writer) SetOptions(coll *Collection, opts bson.D) (*Collection, error) {
	return w.setOptions(coll, opts, coll.Indexes())
}

// setOptions is SetOptions that also replaces coll's index list.
func (w *Writer) setOptions(coll *Collection, opts bson.D, idxs []*Index) (*Collection, error) {
	c := w.c
	if err := w.claimDDL(coll); err != nil {
		return nil, err
	}
	next := &Collection{DB: coll.DB, Name: coll.Name, ID: coll.ID, UUID: coll.UUID, Options: opts, cat: c}
	next.indexes.Store(&idxs)
	next.count.Store(coll.count.Load())
	next.size.Store(coll.size.Load())
	if err := putEntry(w.b, next, idxs); err != nil {
		return nil, err
	}
	w.publish = append(w.publish, func() {
		c.unpublishNS(coll)
		c.publishNS(next)
	})
	return next, nil
}
