//go:build invariants

package storage

import (
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/invariants"
	"github.com/relaydb/relaydb/internal/storage/keystring"
)

// The batch invariants (batch_invariants.go) on hand-built batches with
// the catalog's key layout: each violation must panic at Commit, before
// anything is written; each legitimate shape (including the exemptions)
// must commit.

// The fixture's collections: app.c (id 1) with indexes 10 (_id_), 11
// (non-unique, on a) and 12 (unique, on u); app.other (id 2) with index
// 20; local.system.replset (id 3) with index 30.
var (
	uuidC     = []byte("uuid-app.c......")
	uuidOther = []byte("uuid-app.other..")
	uuidLocal = []byte("uuid-local......")
)

func invariantEngine(t *testing.T) *Engine {
	t.Helper()
	e := openMem(t)
	b := e.NewBatch()
	for _, c := range []struct {
		id       uint32
		db, name string
		uuid     []byte
		indexes  []int64
	}{
		{1, "app", "c", uuidC, []int64{10, 11, 12}},
		{2, "app", "other", uuidOther, []int64{20}},
		{3, "local", "system.replset", uuidLocal, []int64{30}},
	} {
		var idxs bson.A
		for _, id := range c.indexes {
			idxs = append(idxs, bson.D{{Key: "id", Value: id}, {Key: "spec", Value: bson.D{}}, {Key: "multikey", Value: false}})
		}
		raw, err := bson.Marshal(bson.D{{Key: "id", Value: int64(c.id)}, {Key: "db", Value: c.db}, {Key: "name", Value: c.name},
			{Key: "uuid", Value: bson.Binary{Subtype: 4, Data: c.uuid}}, {Key: "options", Value: bson.D{}}, {Key: "indexes", Value: idxs}})
		if err != nil {
			t.Fatal(err)
		}
		must(t, b.Set(CatalogKey(c.id), raw))
	}
	if _, err := e.Commit(b, false); err != nil {
		t.Fatal(err)
	}
	return e
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func ks(v any) []byte { return keystring.AppendValue(nil, v, false) }

func docKeyOf(coll uint32, id any) []byte { return DocKey(coll, ks(id)) }

// nonUniqueKey is an entry of index 11: keystring(a) + keystring(_id).
func nonUniqueKey(index uint32, a, id any) []byte {
	return append(append(IndexPrefix(index), ks(a)...), ks(id)...)
}

// uniqueKey is an entry of index 12: keystring(u) -> keystring(_id).
func uniqueKey(index uint32, u any) []byte { return append(IndexPrefix(index), ks(u)...) }

var nextTS uint32

// entry returns an oplog key and entry; o2 may be nil.
func entry(t *testing.T, op, ns string, ui []byte, o, o2 bson.D) ([]byte, []byte) {
	t.Helper()
	nextTS++
	ts := bson.Timestamp{T: 100, I: nextTS}
	d := bson.D{{Key: "ts", Value: ts}, {Key: "t", Value: int64(1)}, {Key: "v", Value: int64(2)},
		{Key: "op", Value: op}, {Key: "ns", Value: ns}}
	if ui != nil {
		d = append(d, bson.E{Key: "ui", Value: bson.Binary{Subtype: 4, Data: ui}})
	}
	d = append(d, bson.E{Key: "o", Value: o})
	if o2 != nil {
		d = append(d, bson.E{Key: "o2", Value: o2})
	}
	d = append(d, bson.E{Key: "wall", Value: bson.NewDateTimeFromTime(time.Unix(100, 0))})
	raw, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return OplogKey(ts), raw
}

func idDoc(id any) bson.D { return bson.D{{Key: "_id", Value: id}} }

// op is one write of a hand-built batch.
type op struct {
	key, value []byte
	del        bool
}

func set(k, v []byte) op { return op{key: k, value: v} }
func del(k []byte) op    { return op{key: k, del: true} }

func batchOf(t *testing.T, e *Engine, ops ...op) *Batch {
	t.Helper()
	b := e.NewBatch()
	for _, o := range ops {
		if o.del {
			must(t, b.Delete(o.key))
		} else {
			must(t, b.Set(o.key, o.value))
		}
	}
	return b
}

func commitOK(t *testing.T, e *Engine, ops ...op) {
	t.Helper()
	if _, err := e.Commit(batchOf(t, e, ops...), false); err != nil {
		t.Fatal(err)
	}
}

func commitViolates(t *testing.T, e *Engine, want string, ops ...op) {
	t.Helper()
	b := batchOf(t, e, ops...)
	defer b.Close()
	defer func() {
		t.Helper()
		r := recover()
		v, ok := r.(invariants.Violation)
		if !ok {
			t.Fatalf("recovered %v (%T), want an invariant violation %q", r, r, want)
		}
		if !strings.Contains(v.Error(), want) {
			t.Fatalf("violation %q, want it to mention %q", v.Error(), want)
		}
		if _, ok, _ := e.Get(ops[0].key); ok && !ops[0].del {
			t.Fatalf("the violating batch was written")
		}
	}()
	_, _ = e.Commit(b, false)
}

func insertOps(t *testing.T, id, a, u any) []op {
	k, v := entry(t, "i", "app.c", uuidC, bson.D{{Key: "_id", Value: id}, {Key: "a", Value: a}, {Key: "u", Value: u}}, nil)
	return []op{
		set(docKeyOf(1, id), []byte("doc")),
		set(nonUniqueKey(11, a, id), nil),
		set(uniqueKey(12, u), ks(id)),
		set(CollStatsKey(1), make([]byte, 16)),
		set(k, v),
	}
}

func TestInvariantBatchLegitimateShapesPass(t *testing.T) {
	e := invariantEngine(t)
	commitOK(t, e, insertOps(t, int32(1), "x", "u1")...)
	commitOK(t, e, insertOps(t, int32(2), "y", "u2")...)

	// update _id 1: a x -> z, u u1 -> u3; the entry names o2._id (as 1.0:
	// the _id compares by value).
	k, v := entry(t, "u", "app.c", uuidC, bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: "z"}}}}, idDoc(1.0))
	commitOK(t, e, set(docKeyOf(1, int32(1)), []byte("doc2")),
		del(nonUniqueKey(11, "x", int32(1))), set(nonUniqueKey(11, "z", int32(1)), nil),
		del(uniqueKey(12, "u1")), set(uniqueKey(12, "u3"), ks(int32(1))), set(k, v))

	// delete _id 2, then an update of _id 2 that an applier skips (the
	// document is gone), in one batch: more entries than writes is fine.
	k1, v1 := entry(t, "d", "app.c", uuidC, idDoc(int32(2)), nil)
	k2, v2 := entry(t, "u", "app.c", uuidC, bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: 1}}}}, idDoc(int32(2)))
	commitOK(t, e, del(docKeyOf(1, int32(2))), del(nonUniqueKey(11, "y", int32(2))), del(uniqueKey(12, "u2")),
		set(k1, v1), set(k2, v2))

	// An entry without ui is matched by ns.
	k, v = entry(t, "i", "app.c", nil, idDoc("s"), nil)
	commitOK(t, e, set(docKeyOf(1, "s"), []byte("doc")), set(k, v))

	// Exempt: the local database (alone, and beside replicated writes).
	commitOK(t, e, set(docKeyOf(3, "cfg"), []byte("doc")), set(nonUniqueKey(30, 1, "cfg"), nil))
	k, v = entry(t, "i", "app.other", uuidOther, idDoc(int32(7)), nil)
	commitOK(t, e, set(docKeyOf(3, "cfg2"), []byte("doc")), set(docKeyOf(2, int32(7)), []byte("doc")),
		set(nonUniqueKey(20, 1, int32(7)), nil), set(k, v))

	// Exempt: cloning or rollback (documents and entries, no oplog entry),
	// in a batch marked unlogged.
	b := batchOf(t, e, set(docKeyOf(2, int32(8)), []byte("doc")), set(docKeyOf(2, int32(9)), []byte("doc")),
		set(nonUniqueKey(20, 1, int32(8)), nil), set(nonUniqueKey(20, 1, int32(9)), nil))
	b.MarkUnlogged()
	if _, err := e.Commit(b, false); err != nil {
		t.Fatal(err)
	}

	// Exempt: an index build (entries only), also of an index no catalog
	// entry lists yet, and beside an unrelated replicated write.
	commitOK(t, e, set(nonUniqueKey(20, 2, int32(8)), nil), set(nonUniqueKey(99, 2, int32(8)), nil))
	k, v = entry(t, "i", "app.c", uuidC, idDoc("t"), nil)
	commitOK(t, e, set(nonUniqueKey(20, 3, int32(9)), nil), set(docKeyOf(1, "t"), []byte("doc")), set(k, v))

	// A DDL batch: a range deletion and a command entry.
	k, v = entry(t, "c", "app.$cmd", uuidOther, bson.D{{Key: "drop", Value: "other"}}, nil)
	b = batchOf(t, e, set(k, v))
	must(t, b.DeleteRange(DocPrefix(2), PrefixEnd(DocPrefix(2))))
	if _, err := e.Commit(b, false); err != nil {
		t.Fatal(err)
	}
}

func TestInvariantDocumentWithoutItsEntry(t *testing.T) {
	e := invariantEngine(t)
	k, v := entry(t, "i", "app.c", uuidC, idDoc(int32(2)), nil)
	commitViolates(t, e, "writes document _id 1 of app.c (collection 1) without an oplog entry for it",
		set(docKeyOf(1, int32(1)), []byte("doc")), set(k, v))
}

func TestInvariantDocumentInBatchWithoutEntries(t *testing.T) {
	e := invariantEngine(t)
	commitViolates(t, e, "writes document _id 1 of app.c (collection 1) without an oplog entry for it; it holds no oplog entry and is not marked unlogged",
		set(docKeyOf(1, int32(1)), []byte("doc")), set(nonUniqueKey(11, "x", int32(1)), nil))
	commitOK(t, e, insertOps(t, int32(2), "x", "u2")...)
	commitViolates(t, e, "without an oplog entry for it",
		del(docKeyOf(1, int32(2))), del(nonUniqueKey(11, "x", int32(2))), del(uniqueKey(12, "u2")))
}

func TestInvariantUnloggedBatchWithEntry(t *testing.T) {
	e := invariantEngine(t)
	ops := insertOps(t, int32(1), "x", "u1")
	b := batchOf(t, e, ops...)
	b.MarkUnlogged()
	defer b.Close()
	defer func() {
		r := recover()
		if v, ok := r.(invariants.Violation); !ok || !strings.Contains(v.Error(), "marked unlogged holds 1 oplog entries") {
			t.Fatalf("recovered %v, want the unlogged batch with an entry refused", r)
		}
		if _, ok, _ := e.Get(ops[0].key); ok {
			t.Fatal("the violating batch was written")
		}
	}()
	_, _ = e.Commit(b, false)
}

func TestInvariantEntryNamesAnotherCollection(t *testing.T) {
	e := invariantEngine(t)
	k, v := entry(t, "i", "app.other", uuidOther, idDoc(int32(1)), nil)
	commitViolates(t, e, "without an oplog entry for it",
		set(docKeyOf(1, int32(1)), []byte("doc")), set(k, v))
}

func TestInvariantDeleteWithoutItsEntry(t *testing.T) {
	e := invariantEngine(t)
	commitOK(t, e, insertOps(t, int32(1), "x", "u1")...)
	k, v := entry(t, "n", "", nil, bson.D{{Key: "msg", Value: "noop"}}, nil)
	commitViolates(t, e, "without an oplog entry for it",
		del(docKeyOf(1, int32(1))), del(nonUniqueKey(11, "x", int32(1))), set(k, v))
}

func TestInvariantIndexEntryWithoutItsDocument(t *testing.T) {
	e := invariantEngine(t)
	k, v := entry(t, "i", "app.c", uuidC, idDoc(int32(1)), nil)
	commitViolates(t, e, "sets entry",
		set(nonUniqueKey(11, "x", int32(2)), nil), set(docKeyOf(1, int32(1)), []byte("doc")), set(k, v))
}

func TestInvariantUniqueEntryOfAnotherDocument(t *testing.T) {
	e := invariantEngine(t)
	k, v := entry(t, "i", "app.c", uuidC, idDoc(int32(1)), nil)
	commitViolates(t, e, "of index 12 of app.c without writing its document",
		set(uniqueKey(12, "u"), ks(int32(2))), set(docKeyOf(1, int32(1)), []byte("doc")), set(k, v))
}

func TestInvariantIndexEntryWithEntryButNoDocument(t *testing.T) {
	e := invariantEngine(t)
	k, v := entry(t, "i", "app.c", uuidC, idDoc(int32(1)), nil)
	commitViolates(t, e, "writes none of its documents",
		set(nonUniqueKey(11, "x", int32(1)), nil), set(k, v))
}

func TestInvariantDocumentOfUnknownCollection(t *testing.T) {
	e := invariantEngine(t)
	k, v := entry(t, "i", "app.c", uuidC, idDoc(int32(1)), nil)
	commitViolates(t, e, "which has no catalog entry",
		set(docKeyOf(42, int32(1)), []byte("doc")), set(k, v))
}
