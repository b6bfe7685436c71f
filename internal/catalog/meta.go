package catalog

import (
	"encoding/binary"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/storage"
)

// catalogEntry is the persisted form of a collection (storage.CatalogKey).
type catalogEntry struct {
	ID      int64        `bson:"id"`
	DB      string       `bson:"db"`
	Name    string       `bson:"name"`
	UUID    bson.Binary  `bson:"uuid"`
	Options bson.D       `bson:"options"`
	Indexes []indexEntry `bson:"indexes"`
}

type indexEntry struct {
	ID       int64  `bson:"id"`
	Spec     bson.D `bson:"spec"`
	Multikey bool   `bson:"multikey"`
}

// entryOf returns coll's persisted form with the given index list.
func entryOf(coll *Collection, idxs []*Index) catalogEntry {
	e := catalogEntry{ID: int64(coll.ID), DB: coll.DB, Name: coll.Name, UUID: coll.UUID,
		Options: coll.Options}
	if e.Options == nil {
		e.Options = bson.D{}
	}
	for _, idx := range idxs {
		e.Indexes = append(e.Indexes, indexEntry{ID: int64(idx.ID), Spec: idx.Spec, Multikey: idx.Multikey})
	}
	return e
}

// putEntry writes coll's catalog entry (with idxs) into b.
func putEntry(b *storage.Batch, coll *Collection, idxs []*Index) error {
	raw, err := bson.Marshal(entryOf(coll, idxs))
	if err != nil {
		return fmt.Errorf("catalog: encode entry %s: %w", coll.NS(), err)
	}
	return b.Set(storage.CatalogKey(coll.ID), raw)
}

// putStats writes coll's counters (count, size) into b.
func putStats(b *storage.Batch, id uint32, count, size int64) error {
	var v [16]byte
	binary.BigEndian.PutUint64(v[:8], uint64(count))
	binary.BigEndian.PutUint64(v[8:], uint64(size))
	return b.Set(storage.CollStatsKey(id), v[:])
}

// putNextID persists the id allocator.
func putNextID(b *storage.Batch, next uint32) error {
	var v [4]byte
	binary.BigEndian.PutUint32(v[:], next)
	return b.Set(storage.KeyNextID, v[:])
}

// load reads every catalog entry and counter from storage.
func (c *Catalog) load() error {
	c.mu.byNS = map[string]*Collection{}
	c.mu.byID = map[uint32]*Collection{}
	c.mu.nextID = 1
	if v, ok, err := c.eng.Get(storage.KeyNextID); err != nil {
		return fmt.Errorf("catalog: read next id: %w", err)
	} else if ok && len(v) == 4 {
		c.mu.nextID = binary.BigEndian.Uint32(v)
	}
	lo, hi := storage.CatalogBounds()
	it, err := c.eng.NewIter(lo, hi)
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if len(it.Key()) != 5 {
			continue // KeyNextID
		}
		if err := c.loadEntry(it.Value()); err != nil {
			return err
		}
	}
	return it.Error()
}

// loadEntry publishes one persisted collection.
func (c *Catalog) loadEntry(raw []byte) error {
	var e catalogEntry
	if err := bson.Unmarshal(raw, &e); err != nil {
		return fmt.Errorf("catalog: decode entry: %w", err)
	}
	coll := &Collection{DB: e.DB, Name: e.Name, ID: uint32(e.ID), UUID: e.UUID, Options: e.Options, cat: c}
	var idxs []*Index
	for _, ie := range e.Indexes {
		idx, err := parseSpec(ie.Spec)
		if err != nil {
			return fmt.Errorf("catalog: %s index %v: %w", coll.NS(), ie.Spec, err)
		}
		idx.ID, idx.Multikey = uint32(ie.ID), ie.Multikey
		idxs = append(idxs, idx)
	}
	coll.indexes.Store(&idxs)
	if v, ok, err := c.eng.Get(storage.CollStatsKey(coll.ID)); err != nil {
		return fmt.Errorf("catalog: read stats %s: %w", coll.NS(), err)
	} else if ok && len(v) == 16 {
		coll.count.Store(int64(binary.BigEndian.Uint64(v[:8])))
		coll.size.Store(int64(binary.BigEndian.Uint64(v[8:])))
	}
	c.publishNS(coll)
	return nil
}
