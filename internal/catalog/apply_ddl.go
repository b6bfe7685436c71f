package catalog

import (
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/oplog"
)

// applyCommand applies a "c" entry: every command the primary's catalog
// logs (ddl.go, indexbuild.go, rename.go). collMod has no effect here.
func (c *Catalog) applyCommand(e *oplog.Entry) error {
	if len(e.O) == 0 {
		return fmt.Errorf("command entry has an empty o")
	}
	db, _, _ := strings.Cut(e.NS, ".")
	name, _ := e.O[0].Value.(string)
	if name == "" && e.O[0].Key != "dropDatabase" && e.O[0].Key != "collMod" {
		return fmt.Errorf("command entry %v names no collection", e.O)
	}
	switch e.O[0].Key {
	case "create":
		return c.applyCreate(e, db, name)
	case "drop":
		return c.applyDrop(e, db+"."+name)
	case "createIndexes":
		return c.applyCreateIndex(e, db+"."+name)
	case "dropIndexes", "deleteIndexes":
		return c.applyDropIndexes(e, db+"."+name)
	case "renameCollection":
		return c.applyRename(e, name)
	case "dropDatabase":
		return c.applyDropDatabase(e, db)
	case "collMod":
		return c.skip(e, "collMod")
	}
	return fmt.Errorf("unsupported command %q in oplog entry", e.O[0].Key)
}

// applyCreate creates db.name with the entry's UUID and options.
func (c *Catalog) applyCreate(e *oplog.Entry, db, name string) error {
	if c.Collection(db, name) != nil {
		return c.skip(e, "collection exists")
	}
	uuid := newUUID()
	if e.UI != nil {
		if c.collectionByUUID(*e.UI) != nil {
			return c.skip(e, "collection UUID exists (renamed later)")
		}
		uuid = *e.UI
	}
	var opts bson.D
	for _, f := range e.O[1:] {
		if f.Key != "idIndex" {
			opts = append(opts, f)
		}
	}
	b := c.eng.NewBatch()
	id, err := c.allocIDLocked(b)
	if err != nil {
		b.Close()
		return err
	}
	coll := &Collection{DB: db, Name: name, ID: id, UUID: uuid, Options: opts, cat: c}
	idIdx, _ := parseSpec(idIndexSpec())
	idxs := []*Index{idIdx}
	coll.indexes.Store(&idxs)
	if err := putEntry(b, coll, idxs); err != nil {
		b.Close()
		return err
	}
	if err := putStats(b, id, 0, 0); err != nil {
		b.Close()
		return err
	}
	return c.commitApplied(b, e, func() {
		c.mu.byNS[coll.NS()] = coll
		c.mu.byID[id] = coll
	})
}

// applyDrop drops the collection (by UUID), if present.
func (c *Catalog) applyDrop(e *oplog.Entry, ns string) error {
	coll := c.resolve(ns, e.UI)
	if coll == nil {
		return c.skip(e, "collection not found")
	}
	b := c.eng.NewBatch()
	if err := deleteCollectionData(b, coll); err != nil {
		b.Close()
		return err
	}
	return c.commitApplied(b, e, func() { c.unpublish(coll) })
}

// unpublish removes coll from the maps. REQUIRES: c.mu.
func (c *Catalog) unpublish(coll *Collection) {
	if cur := c.mu.byNS[coll.NS()]; cur != nil && cur.ID == coll.ID {
		delete(c.mu.byNS, coll.NS())
	}
	delete(c.mu.byID, coll.ID)
}

// applyDropDatabase drops every collection left in db in one batch (the
// primary logged a drop for each before this entry).
func (c *Catalog) applyDropDatabase(e *oplog.Entry, db string) error {
	colls := c.Collections(db)
	b := c.eng.NewBatch()
	for _, coll := range colls {
		if err := deleteCollectionData(b, coll); err != nil {
			b.Close()
			return err
		}
	}
	return c.commitApplied(b, e, func() {
		for _, coll := range colls {
			c.unpublish(coll)
		}
	})
}

// applyRename moves the collection (by UUID) to o.to, dropping an existing
// target, as the primary did.
func (c *Catalog) applyRename(e *oplog.Entry, from string) error {
	to, _ := lookupString(e.O, "to")
	toDB, toName, ok := strings.Cut(to, ".")
	if !ok {
		return fmt.Errorf("renameCollection entry has no valid 'to': %v", e.O)
	}
	src := c.resolve(from, e.UI)
	if src == nil || src.NS() == to {
		return c.skip(e, "source not found or already renamed")
	}
	b := c.eng.NewBatch()
	target := c.Collection(toDB, toName)
	if target != nil {
		if err := deleteCollectionData(b, target); err != nil {
			b.Close()
			return err
		}
	}
	moved := &Collection{DB: toDB, Name: toName, ID: src.ID, UUID: src.UUID, Options: src.Options, cat: c}
	moved.indexes.Store(src.indexes.Load())
	moved.count.Store(src.count.Load())
	moved.size.Store(src.size.Load())
	if err := putEntry(b, moved, moved.Indexes()); err != nil {
		b.Close()
		return err
	}
	return c.commitApplied(b, e, func() {
		if target != nil {
			delete(c.mu.byID, target.ID)
		}
		delete(c.mu.byNS, src.NS())
		c.mu.byNS[moved.NS()] = moved
		c.mu.byID[moved.ID] = moved
	})
}

// lookupString returns d[key] as a string.
func lookupString(d bson.D, key string) (string, bool) {
	for _, f := range d {
		if f.Key == key {
			s, ok := f.Value.(string)
			return s, ok
		}
	}
	return "", false
}
