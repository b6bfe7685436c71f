package catalog

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/oplog"
)

func TestInsertFindScanCounters(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	mustInsert(t, c, coll, d("_id", int32(2), "a", "x"), d("_id", int32(1), "a", "y"), d("_id", "s"))
	raw, ok, err := coll.FindByID(int64(1)) // numbers compare across types
	if err != nil || !ok {
		t.Fatalf("FindByID: %v %v", ok, err)
	}
	var doc bson.D
	_ = bson.Unmarshal(raw, &doc)
	if doc[1].Value != "y" {
		t.Fatalf("found %v", doc)
	}
	if _, ok, _ := coll.FindByID(int32(3)); ok {
		t.Fatal("found a missing _id")
	}
	if got := ids(drain(t, coll.Scan(false))); !reflect.DeepEqual(got, []any{int32(1), int32(2), "s"}) {
		t.Fatalf("scan order %v", got)
	}
	if got := ids(drain(t, coll.Scan(true))); !reflect.DeepEqual(got, []any{"s", int32(2), int32(1)}) {
		t.Fatalf("reverse scan %v", got)
	}
	if live(c, coll).Count() != 3 || live(c, coll).DataSize() <= 0 {
		t.Fatalf("counters %d %d", coll.Count(), coll.DataSize())
	}
	mustVerify(t, c)
}

func TestDuplicateIDAndMessage(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	mustInsert(t, c, coll, d("_id", int32(1)))
	_, err := c.Insert(coll, d("_id", int32(1), "x", 1))
	var dk *DuplicateKeyError
	if !errors.As(err, &dk) || !mongoerr.Is(err, mongoerr.DuplicateKey) {
		t.Fatalf("want DuplicateKey, got %v", err)
	}
	want := "E11000 duplicate key error collection: db.c index: _id_ dup key: { _id: 1 }"
	if dk.Err.Msg != want || dk.IndexName != "_id_" || dk.KeyValue[0].Key != "_id" {
		t.Fatalf("got %q %+v", dk.Err.Msg, dk)
	}
	if coll.Count() != 1 {
		t.Fatalf("count %d after failed insert", coll.Count())
	}
}

func TestUniqueViolationLeavesNothingHalfWritten(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	mustIndex(t, c, coll, spec("a_1", d("a", int32(1))), spec("b_1", d("b", int32(1)), "unique", true))
	mustInsert(t, c, coll, d("_id", int32(1), "a", int32(5), "b", "k"))
	visibleBefore := c.Oplog().Visible()
	_, err := c.Insert(coll, d("_id", int32(2), "a", int32(6), "b", "k"))
	var dk *DuplicateKeyError
	if !errors.As(err, &dk) {
		t.Fatalf("want dup key, got %v", err)
	}
	if dk.Err.Msg != `E11000 duplicate key error collection: db.c index: b_1 dup key: { b: "k" }` {
		t.Fatalf("message %q", dk.Err.Msg)
	}
	if !reflect.DeepEqual(dk.KeyPattern, d("b", int32(1))) {
		t.Fatalf("key pattern %v", dk.KeyPattern)
	}
	if _, ok, _ := coll.FindByID(int32(2)); ok {
		t.Fatal("document written despite dup key")
	}
	if got := drain(t, coll.ScanIndex(live(c, coll).Index("a_1"), ks(int32(6)), nil, false)); len(got) != 0 {
		t.Fatal("a_1 entry written despite dup key")
	}
	if c.Oplog().Visible() != visibleBefore {
		t.Fatal("oplog advanced for a failed write")
	}
	// The failed write's slot must not block later writes' visibility.
	r, err := c.Insert(coll, d("_id", int32(3), "b", "z"))
	if err != nil || c.Oplog().Visible() != r.TS {
		t.Fatalf("later insert: %v visible %v ts %v", err, c.Oplog().Visible(), r.TS)
	}
	mustVerify(t, c)
}

func TestUpdateMaintainsChangedKeysOnly(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	mustIndex(t, c, coll, spec("a_1", d("a", int32(1))), spec("b_1", d("b", int32(1)), "unique", true))
	old := d("_id", int32(1), "a", int32(1), "b", int32(10))
	mustInsert(t, c, coll, old, d("_id", int32(2), "a", int32(2), "b", int32(20)))
	upd := d("_id", int32(1), "a", int32(3), "b", int32(10))
	r, err := c.Update(coll, old, upd, d("$set", d("a", int32(3))))
	if err != nil {
		t.Fatal(err)
	}
	a1 := live(c, coll).Index("a_1")
	if got := drain(t, coll.ScanIndex(a1, ks(int32(1)), ks(int32(2)), false)); len(got) != 0 {
		t.Fatal("stale a_1 entry remains")
	}
	if got := ids(drain(t, coll.ScanIndex(a1, ks(int32(3)), ks(int32(4)), false))); !reflect.DeepEqual(got, []any{int32(1)}) {
		t.Fatalf("new a_1 entry: %v", got)
	}
	// Unique conflict on update leaves the old document in place.
	_, err = c.Update(coll, upd, d("_id", int32(1), "a", int32(3), "b", int32(20)), d("$set", d("b", 20)))
	if !mongoerr.Is(err, mongoerr.DuplicateKey) {
		t.Fatalf("want dup key, got %v", err)
	}
	raw, _, _ := coll.FindByID(int32(1))
	var doc bson.D
	_ = bson.Unmarshal(raw, &doc)
	if !reflect.DeepEqual(doc, upd) {
		t.Fatalf("doc after failed update %v", doc)
	}
	entries, _ := c.Oplog().Read(bson.Timestamp{}, false, 0)
	last := entries[len(entries)-1]
	if last.TS != r.TS || last.Op != oplog.OpUpdate || last.O2[0].Value != int32(1) {
		t.Fatalf("update oplog entry %+v", last)
	}
	mustVerify(t, c)
}

func TestUpdateDeleteStaleDocIsWriteConflict(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	v1 := d("_id", int32(1), "n", int32(1))
	mustInsert(t, c, coll, v1)
	v2 := d("_id", int32(1), "n", int32(2))
	if _, err := c.Update(coll, v1, v2, d("$set", d("n", 2))); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Update(coll, v1, v2, nil); !mongoerr.Is(err, mongoerr.WriteConflict) {
		t.Fatalf("stale update: %v", err)
	}
	if _, err := c.Delete(coll, v1); !mongoerr.Is(err, mongoerr.WriteConflict) {
		t.Fatalf("stale delete: %v", err)
	}
	if _, err := c.Delete(coll, d("_id", int32(9))); !errors.Is(err, ErrDocumentNotFound) {
		t.Fatalf("delete missing: %v", err)
	}
}

func TestDeleteRemovesEntriesAndWritesOplog(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	mustIndex(t, c, coll, spec("tags_1", d("tags", int32(1))))
	doc := d("_id", int32(1), "tags", bson.A{"x", "y"})
	mustInsert(t, c, coll, doc)
	r, err := c.Delete(coll, doc)
	if err != nil {
		t.Fatal(err)
	}
	if coll.Count() != 0 || coll.DataSize() != 0 {
		t.Fatalf("counters %d %d", coll.Count(), coll.DataSize())
	}
	rep := mustVerify(t, c)
	if rep.IndexEntries != 0 {
		t.Fatalf("%d index entries left", rep.IndexEntries)
	}
	es, _ := c.Oplog().Read(bson.Timestamp{}, false, 0)
	last := es[len(es)-1]
	if last.TS != r.TS || last.Op != "d" || last.NS != "db.c" || last.UI == nil || !reflect.DeepEqual(last.O, d("_id", int32(1))) {
		t.Fatalf("delete entry %+v", last)
	}
}

func TestInsertOplogEntry(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	doc := d("_id", int32(1), "a", "b")
	r, err := c.Insert(coll, doc)
	if err != nil {
		t.Fatal(err)
	}
	es, _ := c.Oplog().Read(bson.Timestamp{}, false, 0)
	if len(es) != 2 || es[0].Op != "c" || es[0].NS != "db.$cmd" || es[0].O[0].Key != "create" {
		t.Fatalf("entries %+v", es)
	}
	if es[1].TS != r.TS || es[1].Op != "i" || !reflect.DeepEqual(es[1].O, doc) ||
		!reflect.DeepEqual(*es[1].UI, coll.UUID) || coll.UUID.Subtype != 4 {
		t.Fatalf("insert entry %+v", es[1])
	}
}

func TestWriteToDroppedCollection(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	if err := c.DropCollection("db", "c"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Insert(coll, d("_id", 1)); !mongoerr.Is(err, mongoerr.NamespaceNotFound) {
		t.Fatalf("insert into dropped: %v", err)
	}
	if _, err := c.Insert(coll, d("x", 1)); !mongoerr.Is(err, mongoerr.InvalidIdField) {
		t.Fatalf("insert without _id: %v", err)
	}
}

func TestParallelArraysRejected(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	mustIndex(t, c, coll, spec("a_1_b_1", d("a", int32(1), "b", int32(1))))
	_, err := c.Insert(coll, d("_id", 1, "a", bson.A{1, 2}, "b", bson.A{3}))
	if !mongoerr.Is(err, CannotIndexParallelArrays) {
		t.Fatalf("want 171, got %v", err)
	}
	if coll.Count() != 0 {
		t.Fatal("doc written")
	}
	mustInsert(t, c, coll, d("_id", 2, "a", bson.A{1, 2}, "b", 3))
	if !live(c, coll).Index("a_1_b_1").Multikey {
		t.Fatal("multikey not tracked")
	}
}

func TestConcurrentInsertsAllVisibleInOrder(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func(g int) {
			for i := 0; i < 25; i++ {
				if _, err := c.Insert(coll, d("_id", fmt.Sprintf("%d-%d", g, i))); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}(g)
	}
	for g := 0; g < 8; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	es, _ := c.Oplog().Read(bson.Timestamp{}, false, 0)
	if len(es) != 201 || live(c, coll).Count() != 200 {
		t.Fatalf("%d entries, count %d", len(es), coll.Count())
	}
	for i := 1; i < len(es); i++ {
		if !es[i].TS.After(es[i-1].TS) {
			t.Fatalf("oplog out of order at %d", i)
		}
	}
}
