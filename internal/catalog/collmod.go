package catalog

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// CollMod merges changes into db.name's options (a key already there is
// replaced, a new one appended) and logs {collMod: name, <changes>} so
// secondaries apply the same change. The caller validates the changes.
// Errors: NamespaceNotFound (26).
func (c *Catalog) CollMod(db, name string, changes bson.D) (*Collection, error) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	coll := c.Collection(db, name)
	if coll == nil {
		return nil, mongoerr.New(mongoerr.NamespaceNotFound, "ns does not exist: %s.%s", db, name)
	}
	var out *Collection
	_, err := c.apply(func(w *Writer) error {
		var err error
		if out, err = w.SetOptions(coll, MergeOptions(coll.Options, changes)); err != nil {
			return err
		}
		o := append(bson.D{{Key: "collMod", Value: name}}, changes...)
		return w.appendEntry(cmdEntry(db, &coll.UUID, o))
	})
	return out, err
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
	c := w.c
	if err := w.claimDDL(coll); err != nil {
		return nil, err
	}
	next := &Collection{DB: coll.DB, Name: coll.Name, ID: coll.ID, UUID: coll.UUID, Options: opts, cat: c}
	next.indexes.Store(coll.indexes.Load())
	next.count.Store(coll.count.Load())
	next.size.Store(coll.size.Load())
	if err := putEntry(w.b, next, next.Indexes()); err != nil {
		return nil, err
	}
	w.publish = append(w.publish, func() {
		c.unpublishNS(coll)
		c.publishNS(next)
	})
	return next, nil
}
