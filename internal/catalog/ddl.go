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

// commitLocked appends the oplog entries to b, commits it, and on success
// runs publish (under c.mu) so the in-memory catalog matches storage.
// REQUIRES: c.writeMu.
func (c *Catalog) commitLocked(b *storage.Batch, entries []*oplog.Entry, publish func()) (WriteResult, error) {
	defer b.Close()
	entries = replicatedEntries(entries)
	slots := make([]*oplog.Slot, len(entries))
	for i, e := range entries {
		slots[i] = c.log.Reserve()
		if err := c.log.Append(b, slots[i], e); err != nil {
			c.abort(slots)
			return WriteResult{}, err
		}
	}
	var ts bson.Timestamp
	if len(slots) > 0 {
		ts = slots[len(slots)-1].TS
	}
	seq, err := c.commitTracked(b, ts)
	if err != nil {
		c.abort(slots)
		return WriteResult{}, err
	}
	if publish != nil {
		c.mu.Lock()
		publish()
		c.mu.Unlock()
	}
	for _, s := range slots {
		c.log.Commit(s)
	}
	var r WriteResult
	if len(slots) > 0 {
		r.TS = slots[len(slots)-1].TS
	}
	r.Seq = seq
	return r, nil
}

func (c *Catalog) abort(slots []*oplog.Slot) {
	for _, s := range slots {
		if s != nil {
			c.log.Abort(s)
		}
	}
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

// createLocked creates db.name. REQUIRES: c.writeMu.
func (c *Catalog) createLocked(db, name string, opts bson.D) (*Collection, error) {
	if c.Collection(db, name) != nil {
		return nil, mongoerr.New(mongoerr.NamespaceExists, "Collection %s.%s already exists.", db, name)
	}
	b := c.eng.NewBatch()
	id, err := c.allocIDLocked(b)
	if err != nil {
		b.Close()
		return nil, err
	}
	coll := &Collection{DB: db, Name: name, ID: id, UUID: newUUID(), Options: opts, cat: c}
	idIdx, _ := parseSpec(idIndexSpec())
	idxs := []*Index{idIdx}
	coll.indexes.Store(&idxs)
	if err := putEntry(b, coll, idxs); err != nil {
		b.Close()
		return nil, err
	}
	if err := putStats(b, id, 0, 0); err != nil {
		b.Close()
		return nil, err
	}
	o := append(bson.D{{Key: "create", Value: name}}, opts...)
	o = append(o, bson.E{Key: "idIndex", Value: idIndexSpec()})
	_, err = c.commitLocked(b, []*oplog.Entry{cmdEntry(db, &coll.UUID, o)}, func() {
		c.mu.byNS[coll.NS()] = coll
		c.mu.byID[id] = coll
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

// dropLocked drops coll. REQUIRES: c.writeMu.
func (c *Catalog) dropLocked(coll *Collection) error {
	b := c.eng.NewBatch()
	if err := deleteCollectionData(b, coll); err != nil {
		b.Close()
		return err
	}
	e := cmdEntry(coll.DB, &coll.UUID, bson.D{{Key: "drop", Value: coll.Name}})
	_, err := c.commitLocked(b, []*oplog.Entry{e}, func() {
		delete(c.mu.byNS, coll.NS())
		delete(c.mu.byID, coll.ID)
	})
	return err
}

// DropDatabase drops every collection of db, then writes a dropDatabase
// oplog entry. Dropping an absent database is not an error.
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
	b := c.eng.NewBatch()
	_, err := c.commitLocked(b, []*oplog.Entry{cmdEntry(db, nil, bson.D{{Key: "dropDatabase", Value: int32(1)}})}, nil)
	return err
}
