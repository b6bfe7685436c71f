package catalog

import (
	"crypto/rand"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/storage"
)

// idIndexSpec is the spec of every collection's _id_ index.
func idIndexSpec() bson.D {
	return bson.D{{Key: "v", Value: int32(2)}, {Key: "key", Value: bson.D{{Key: "_id", Value: int32(1)}}},
		{Key: "name", Value: "_id_"}}
}

func newUUID() bson.Binary {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return bson.Binary{Subtype: bson.TypeBinaryUUID, Data: b}
}

// allocIDLocked returns a fresh collection/index id. REQUIRES: c.writeMu.
func (c *Catalog) allocIDLocked(b *storage.Batch) (uint32, error) {
	c.mu.Lock()
	id := c.mu.nextID
	c.mu.nextID++
	next := c.mu.nextID
	c.mu.Unlock()
	return id, putNextID(b, next)
}

// cmdEntry returns a "c" oplog entry on db.$cmd.
func cmdEntry(db string, ui *bson.Binary, o bson.D) *oplog.Entry {
	return &oplog.Entry{Op: oplog.OpCommand, NS: db + ".$cmd", UI: ui, O: o}
}

// CreateCollection creates db.name with the _id_ index.
// Errors: InvalidNamespace (73), NamespaceExists (48).
func (c *Catalog) CreateCollection(db, name string, opts bson.D) (*Collection, error) {
	if err := ValidateCollName(db, name); err != nil {
		return nil, err
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	return c.createLocked(db, name, opts)
}

// createLocked creates db.name through a Writer. REQUIRES: c.writeMu.
func (c *Catalog) createLocked(db, name string, opts bson.D) (*Collection, error) {
	var coll *Collection
	_, err := c.apply(func(w *Writer) error {
		var err error
		if coll, err = w.CreateCollection(db, name, bson.Binary{}, opts, nil); err != nil {
			return err
		}
		o := append(bson.D{{Key: "create", Value: name}}, opts...)
		o = append(o, bson.E{Key: "idIndex", Value: idIndexSpec()})
		return w.appendEntry(cmdEntry(db, &coll.UUID, o))
	})
	if err != nil {
		return nil, err
	}
	return coll, nil
}

// ensureLocked returns db.name, creating it if absent. REQUIRES: c.writeMu.
func (c *Catalog) ensureLocked(db, name string) (*Collection, error) {
	if coll := c.Collection(db, name); coll != nil {
		return coll, nil
	}
	if err := ValidateCollName(db, name); err != nil {
		return nil, err
	}
	return c.createLocked(db, name, nil)
}

// deleteCollectionData adds the deletion of coll's documents, index entries,
// counters and catalog entry to b.
func deleteCollectionData(b *storage.Batch, coll *Collection) error {
	ranges := [][]byte{storage.DocPrefix(coll.ID)}
	for _, idx := range coll.Indexes() {
		if !idx.IsID() {
			ranges = append(ranges, storage.IndexPrefix(idx.ID))
		}
	}
	for _, p := range ranges {
		if err := b.DeleteRange(p, storage.PrefixEnd(p)); err != nil {
			return fmt.Errorf("catalog: drop %s: %w", coll.NS(), err)
		}
	}
	if err := b.Delete(storage.CollStatsKey(coll.ID)); err != nil {
		return err
	}
	return b.Delete(storage.CatalogKey(coll.ID))
}

// DropCollection drops db.name. Errors: NamespaceNotFound (26).
func (c *Catalog) DropCollection(db, name string) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	coll := c.Collection(db, name)
	if coll == nil {
		return mongoerr.New(mongoerr.NamespaceNotFound, "ns not found")
	}
	return c.dropLocked(coll)
}

// dropLocked drops coll through a Writer. REQUIRES: c.writeMu.
func (c *Catalog) dropLocked(coll *Collection) error {
	_, err := c.apply(func(w *Writer) error {
		if err := w.DropCollection(coll); err != nil {
			return err
		}
		return w.appendEntry(cmdEntry(coll.DB, &coll.UUID, bson.D{{Key: "drop", Value: coll.Name}}))
	})
	return err
}

// DropDatabase drops every collection of db (a batch each), then writes a
// dropDatabase oplog entry in a batch of its own. Dropping an absent
// database is not an error.
func (c *Catalog) DropDatabase(db string) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	colls := c.Collections(db)
	for _, coll := range colls {
		if err := c.dropLocked(coll); err != nil {
			return err
		}
	}
	if len(colls) == 0 {
		return nil
	}
	_, err := c.apply(func(w *Writer) error {
		return w.appendEntry(cmdEntry(db, nil, bson.D{{Key: "dropDatabase", Value: int32(1)}}))
	})
	return err
}
