package storage

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"

	"github.com/cockroachdb/pebble"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/invariants"
	"github.com/relaydb/relaydb/internal/storage/keystring"
)

// The batch invariants, checked at Commit in builds with the invariants
// tag (internal/invariants), on the keys of keys.go:
//
//  1. A document and its oplog entry share one batch: every document a
//     batch sets or deletes in a replicated collection (one outside the
//     local database) is named by at least one CRUD entry (op i, u or d)
//     of the same batch: the same collection (ui, or ns when the entry has
//     no ui) and the same _id (o._id for i and d, o2._id for u). A
//     primary's write has exactly one; "at least" because an applier batch
//     may also carry entries that found nothing to change (an update after
//     a delete of the same document), so more entries than writes of a
//     document is legitimate, none is not. A batch with no oplog entry at
//     all is checked too, unless it is marked unlogged (below).
//  2. An index entry is written with its document: when a batch sets or
//     deletes an entry of an index of a collection whose documents it
//     writes, it also sets or deletes that document (the _id that ends a
//     non-unique entry's key, or that a unique entry holds as its value).
//     The index must belong to a collection the batch writes documents of,
//     unless the batch holds no CRUD entry for the index's collection.
//  3. A batch marked unlogged (Batch.MarkUnlogged) holds no oplog entry.
//
// Exempt, because they legitimately write without an oplog entry or
// without a document:
//   - local-database collections: never replicated, no entry (rule 1
//     skips them);
//   - initial sync's cloning (documents copied from the sync source) and
//     rollback's document restores: the state they write is already in
//     the source's history, they append no entry. Their callers mark
//     their batches unlogged (catalog.Writer.Unlogged), which exempts
//     them from rule 1; nothing else is marked, so an applier's batch
//     that writes a document and loses its entry fails rule 1;
//   - index builds and rebuilds (CreateIndexes, initial sync's repair of
//     relaxed unique indexes): entries for documents already committed,
//     in batches with no document write and no entry for the collection;
//   - range deletions (drop collection, drop index, drop database), which
//     the DDL entry in the same batch describes, or which have none on
//     purpose (rollback's undo of a create or an index build, initial
//     sync's reset): rules 1 and 2 read only point sets and deletes;
//   - replication markers (PrefixRepl), and oplog entry deletions
//     (TruncateOplogAfter, the size cap), in batches of their own: they
//     write no document, and a deleted entry is not counted as an entry.

// checkBatch panics (invariants.Violated) when b breaks rule 1, 2 or 3.
func (e *Engine) checkBatch(b *Batch) {
	c := scanBatch(b)
	if b.unlogged && c.nEntries > 0 {
		invariants.Violated("storage: batch marked unlogged holds %d oplog entries", c.nEntries)
	}
	if len(c.docs) == 0 && len(c.index) == 0 {
		return
	}
	c.b = b
	c.colls = map[uint32]*collInfo{}
	if !b.unlogged {
		c.checkDocsHaveEntries()
	}
	c.checkIndexWritesHaveDocs()
}

// batchContents is what checkBatch reads from a batch's records.
type batchContents struct {
	b        *Batch
	docs     map[docRef]int // document key writes (sets and deletes)
	docColls map[uint32]bool
	index    []indexWrite
	crud     []crudEntry
	nEntries int // oplog entries set, of any op
	colls    map[uint32]*collInfo
	byUUID   map[string]*collInfo // every catalog entry, loaded on demand
}

type docRef struct {
	coll uint32
	id   string // keystring(_id)
}

type indexWrite struct {
	index      uint32
	key, value []byte
	del        bool
}

// crudEntry is an i/u/d oplog entry: its collection and keystring(_id).
type crudEntry struct {
	ts bson.Timestamp
	op string
	ns string
	ui []byte // nil when the entry has none
	id string
}

// collInfo is what the check needs of a catalog entry (CatalogKey).
type collInfo struct {
	id      uint32
	found   bool
	db, ns  string
	uuid    []byte
	indexes map[uint32]bool
}

func scanBatch(b *Batch) *batchContents {
	c := &batchContents{docs: map[docRef]int{}, docColls: map[uint32]bool{}}
	r := b.b.Reader()
	for {
		kind, k, v, ok, err := r.Next()
		if err != nil {
			invariants.Violated("storage: unreadable batch: %v", err)
		}
		if !ok {
			return c
		}
		c.add(kind, k, v)
	}
}

func (c *batchContents) add(kind pebble.InternalKeyKind, k, v []byte) {
	del := kind == pebble.InternalKeyKindDelete || kind == pebble.InternalKeyKindSingleDelete
	if (!del && kind != pebble.InternalKeyKindSet) || len(k) < 5 {
		return // range deletions, merges, log data; short meta keys
	}
	switch k[0] {
	case PrefixDocument:
		d := docRef{coll: binary.BigEndian.Uint32(k[1:5]), id: string(k[5:])}
		c.docs[d]++
		c.docColls[d.coll] = true
	case PrefixIndex:
		c.index = append(c.index, indexWrite{index: binary.BigEndian.Uint32(k[1:5]),
			key: append([]byte(nil), k...), value: append([]byte(nil), v...), del: del})
	case PrefixOplog:
		if !del {
			c.nEntries++
			c.crud = append(c.crud, parseEntries(k, v)...) // batch_invariants_txn.go
		}
	}
}

// parseCRUD reads an i/u/d entry's collection and _id; ok is false for
// other ops, and for an entry without a readable _id (which then names no
// document: rule 1 reports the document it should have named).
func parseCRUD(k, v []byte) (crudEntry, bool) {
	ts, _ := OplogTS(k)
	raw := bson.Raw(v)
	if raw.Validate() != nil {
		return crudEntry{}, false
	}
	op, _ := raw.Lookup("op").StringValueOK()
	idPath := []string{"o", "_id"}
	switch op {
	case "i", "d":
	case "u":
		idPath = []string{"o2", "_id"}
	default:
		return crudEntry{}, false
	}
	e := crudEntry{ts: ts, op: op}
	e.ns, _ = raw.Lookup("ns").StringValueOK()
	if _, data, ok := raw.Lookup("ui").BinaryOK(); ok {
		e.ui = append([]byte(nil), data...)
	}
	idv, err := raw.LookupErr(idPath...)
	var id any
	if err == nil {
		err = idv.Unmarshal(&id)
	}
	if err != nil {
		return crudEntry{}, false
	}
	e.id = string(keystring.AppendValue(nil, id, false))
	return e, true
}

// checkDocsHaveEntries is rule 1.
func (c *batchContents) checkDocsHaveEntries() {
	for d := range c.docs {
		info := c.coll(d.coll)
		if !info.found {
			invariants.Violated("storage: batch writes document %s of collection %d, which has no catalog entry", fmtID(d.id), d.coll)
		}
		if info.db == "local" {
			continue
		}
		if c.entriesFor(info, d.id) == 0 {
			if c.nEntries == 0 {
				invariants.Violated("storage: batch writes document %s of %s (collection %d) without an oplog entry for it; it holds no oplog entry and is not marked unlogged",
					fmtID(d.id), info.ns, d.coll)
			}
			invariants.Violated("storage: batch writes document %s of %s (collection %d) without an oplog entry for it; its %d oplog entries name %s",
				fmtID(d.id), info.ns, d.coll, c.nEntries, c.entryList())
		}
	}
}

func (c *batchContents) entriesFor(info *collInfo, id string) int {
	n := 0
	for _, e := range c.crud {
		if e.id == id && e.names(info) {
			n++
		}
	}
	return n
}

func (e crudEntry) names(info *collInfo) bool {
	if e.ui != nil {
		return bytes.Equal(e.ui, info.uuid)
	}
	return e.ns == info.ns
}

// checkIndexWritesHaveDocs is rule 2.
func (c *batchContents) checkIndexWritesHaveDocs() {
	for _, w := range c.index {
		owner := c.ownerAmongDocColls(w.index)
		if owner == nil {
			c.checkUnownedIndexWrite(w)
			continue
		}
		if !c.writesDocOf(owner.id, w) {
			invariants.Violated("storage: batch %s entry %x of index %d of %s without writing its document",
				setOrDelete(w.del), w.key, w.index, owner.ns)
		}
	}
}

// writesDocOf reports whether the batch writes the document an index entry
// write belongs to, in collection coll. A deleted unique entry does not
// carry its _id: any document write of the collection is accepted.
func (c *batchContents) writesDocOf(coll uint32, w indexWrite) bool {
	if !w.del && len(w.value) > 0 { // unique entry: the value is keystring(_id)
		return c.docs[docRef{coll: coll, id: string(w.value)}] > 0
	}
	for d := range c.docs {
		if d.coll == coll && bytes.HasSuffix(w.key, []byte(d.id)) {
			return true
		}
	}
	return w.del
}

// ownerAmongDocColls returns the collection whose documents the batch
// writes that has index id, or nil.
func (c *batchContents) ownerAmongDocColls(index uint32) *collInfo {
	for coll := range c.docColls {
		if info := c.coll(coll); info.indexes[index] {
			return info
		}
	}
	return nil
}

// checkUnownedIndexWrite: an index entry of a collection the batch writes
// no document of is an index build's, unless the batch holds a CRUD entry
// for that collection (a write that lost its document).
func (c *batchContents) checkUnownedIndexWrite(w indexWrite) {
	if len(c.crud) == 0 {
		return // an index build or rebuild
	}
	for _, info := range c.allColls() {
		if !info.indexes[w.index] {
			continue
		}
		for _, e := range c.crud {
			if e.names(info) {
				invariants.Violated("storage: batch %s entry %x of index %d of %s and oplog entry %v (op %s) for that collection, but writes none of its documents",
					setOrDelete(w.del), w.key, w.index, info.ns, e.ts, e.op)
			}
		}
	}
}

// coll returns collection id's catalog entry as the batch sees it.
func (c *batchContents) coll(id uint32) *collInfo {
	if info, ok := c.colls[id]; ok {
		return info
	}
	raw, ok, err := c.b.Get(CatalogKey(id))
	if err != nil {
		invariants.Violated("storage: read catalog entry %d: %v", id, err)
	}
	info := &collInfo{id: id}
	if ok {
		info = parseCollInfo(id, raw)
	}
	c.colls[id] = info
	return info
}

// allColls loads every catalog entry (through the batch).
func (c *batchContents) allColls() map[string]*collInfo {
	if c.byUUID != nil {
		return c.byUUID
	}
	c.byUUID = map[string]*collInfo{}
	lo, hi := CatalogBounds()
	it, err := c.b.b.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		invariants.Violated("storage: iterate catalog: %v", err)
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if len(it.Key()) != 5 {
			continue // next-id
		}
		v := append([]byte(nil), it.Value()...) // valid only until the next move
		info := parseCollInfo(binary.BigEndian.Uint32(it.Key()[1:]), v)
		c.byUUID[string(info.uuid)] = info
	}
	return c.byUUID
}

// parseCollInfo reads {id, db, name, uuid, indexes: [{id}]} (keys.go).
func parseCollInfo(id uint32, v []byte) *collInfo {
	raw := bson.Raw(v)
	info := &collInfo{id: id, found: true, indexes: map[uint32]bool{}}
	info.db, _ = raw.Lookup("db").StringValueOK()
	name, _ := raw.Lookup("name").StringValueOK()
	info.ns = info.db + "." + name
	if _, data, ok := raw.Lookup("uuid").BinaryOK(); ok {
		info.uuid = data
	}
	idxs, _ := raw.Lookup("indexes").ArrayOK()
	vals, _ := idxs.Values()
	for _, iv := range vals {
		doc, ok := iv.DocumentOK()
		if !ok {
			continue
		}
		switch x := doc.Lookup("id"); x.Type {
		case bson.TypeInt64:
			info.indexes[uint32(x.Int64())] = true
		case bson.TypeInt32:
			info.indexes[uint32(x.Int32())] = true
		}
	}
	return info
}

func (c *batchContents) entryList() string {
	s := ""
	for i, e := range c.crud {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s %s %s", e.op, e.ns, fmtID(e.id))
	}
	if s == "" {
		return "no document"
	}
	return s
}

// fmtID renders keystring(_id) as the value when it decodes, else hex.
func fmtID(ks string) string {
	if v, rest, err := keystring.Decode([]byte(ks), false); err == nil && len(rest) == 0 {
		return fmt.Sprintf("_id %v", v)
	}
	return "_id " + hex.EncodeToString([]byte(ks))
}

func setOrDelete(del bool) string {
	if del {
		return "deletes"
	}
	return "sets"
}
