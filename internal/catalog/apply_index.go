package catalog

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/storage"
)

// applyCreateIndex builds the index whose spec is e.O minus its first
// field, unless an index of that name already exists.
// TODO(#4): build in the background so a long build does not stall
// replication (MongoDB's two-phase index builds).
func (c *Catalog) applyCreateIndex(e *oplog.Entry, ns string) error {
	coll := c.resolve(ns, e.UI)
	if coll == nil {
		return c.skip(e, "collection not found")
	}
	idx, err := parseSpec(append(bson.D(nil), e.O[1:]...))
	if err != nil {
		return err
	}
	if dup, err := conflict(coll.Indexes(), idx); err != nil || dup {
		return c.skip(e, "index exists")
	}
	final := c.eng.NewBatch()
	if idx.ID, err = c.allocIDLocked(final); err != nil {
		final.Close()
		return err
	}
	multi, err := c.buildEntries(coll, []*Index{idx})
	if err != nil {
		final.Close()
		c.discardEntries([]*Index{idx})
		return err
	}
	idxs := append(append([]*Index(nil), coll.Indexes()...), withMultikey([]*Index{idx}, multi)...)
	if err := putEntry(final, coll, idxs); err != nil {
		final.Close()
		return err
	}
	return c.commitApplied(final, e, func() { coll.indexes.Store(&idxs) })
}

// applyDropIndexes drops the index o.index names (a name, "*", or a key
// pattern), if present.
func (c *Catalog) applyDropIndexes(e *oplog.Entry, ns string) error {
	coll := c.resolve(ns, e.UI)
	if coll == nil {
		return c.skip(e, "collection not found")
	}
	drop := map[string]bool{}
	for _, f := range e.O[1:] {
		if f.Key != "index" {
			continue
		}
		switch v := f.Value.(type) {
		case string:
			for _, idx := range coll.Indexes() {
				drop[idx.Name] = drop[idx.Name] || (!idx.IsID() && (v == "*" || v == idx.Name))
			}
		case bson.D:
			if idx := c.IndexByKey(coll, v); idx != nil && !idx.IsID() {
				drop[idx.Name] = true
			}
		}
	}
	b := c.eng.NewBatch()
	var keep []*Index
	for _, idx := range coll.Indexes() {
		if !drop[idx.Name] {
			keep = append(keep, idx)
			continue
		}
		p := storage.IndexPrefix(idx.ID)
		if err := b.DeleteRange(p, storage.PrefixEnd(p)); err != nil {
			b.Close()
			return err
		}
	}
	if len(keep) == len(coll.Indexes()) {
		b.Close()
		return c.skip(e, "index not found")
	}
	if err := putEntry(b, coll, keep); err != nil {
		b.Close()
		return err
	}
	return c.commitApplied(b, e, func() { coll.indexes.Store(&keep) })
}
