package catalog

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/storage"
)

// TestApplyIsOneBatch: what fn writes is committed together with the
// oplog entry it appends, or not at all when fn fails.
func TestApplyIsOneBatch(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "app", "a")
	mustIndex(t, c, coll, spec("x_1", d("x", 1)))
	top, _ := c.Oplog().Top()
	boom := errors.New("boom")
	_, err := c.Apply(func(w *Writer) error {
		if err := w.PutDocument(coll, d("_id", 1, "x", 1), nil); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) || live(c, coll).Count() != 0 {
		t.Fatalf("failed fn: err %v, count %d", err, live(c, coll).Count())
	}
	e := &oplog.Entry{Op: oplog.OpInsert, NS: coll.NS(), UI: &coll.UUID, O: d("_id", 2, "x", 2),
		TS: bson.Timestamp{T: top.T + 10, I: 1}, Term: 4}
	r, err := c.Apply(func(w *Writer) error {
		if err := w.PutDocument(coll, e.O, nil); err != nil {
			return err
		}
		return w.AppendOplog(e)
	})
	if err != nil || r.TS != e.TS {
		t.Fatalf("apply: %v %v", r, err)
	}
	if ts, term := c.Oplog().Top(); ts != e.TS || term != 4 || live(c, coll).Count() != 1 {
		t.Fatalf("top %v@%d count %d", ts, term, live(c, coll).Count())
	}
	if _, err := c.Apply(func(w *Writer) error { return w.AppendOplog(e) }); err == nil {
		t.Fatal("an entry not after the top was appended")
	}
	mustVerify(t, c)
}

// TestApplyRules: DDL and document writes of one collection do not mix,
// markers live under the replication prefix, synced batches append no
// oplog entries, and an empty batch commits nothing.
func TestApplyRules(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "app", "a")
	if _, err := c.Apply(func(w *Writer) error {
		if err := w.PutDocument(coll, d("_id", 1), nil); err != nil {
			return err
		}
		return w.DropCollection(coll)
	}); err == nil {
		t.Error("document write and drop of one collection in one batch")
	}
	if _, err := c.Apply(func(w *Writer) error { return w.PutMarker([]byte("xy"), []byte{1}) }); err == nil {
		t.Error("a marker outside the replication prefix")
	}
	top, _ := c.Oplog().Top()
	e := &oplog.Entry{Op: oplog.OpNoop, O: d("msg", "x"), TS: bson.Timestamp{T: top.T + 1}, Term: 1}
	if _, err := c.Apply(func(w *Writer) error { w.Sync(); return w.AppendOplog(e) }); err == nil {
		t.Error("a synced batch appended an oplog entry")
	}
	key := []byte{storage.PrefixRepl, 't', 'e', 's', 't'}
	if _, err := c.Apply(func(w *Writer) error { w.Sync(); return w.PutMarker(key, []byte{7}) }); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := c.Marker(key); err != nil || !ok || v[0] != 7 {
		t.Fatalf("marker %v %v %v", v, ok, err)
	}
	before := c.LastWrite().Seq
	r, err := c.Apply(func(w *Writer) error { return nil })
	if err != nil || r.Seq != 0 || c.LastWrite().Seq != before {
		t.Fatalf("empty batch: %v %v", r, err)
	}
}

// TestApplyUnlogged: a batch that writes documents without oplog entries
// (cloning, restores) commits, marked unlogged for the storage invariants
// check (writer_invariants_test.go: only such a batch); an unlogged batch
// appends no entry.
func TestApplyUnlogged(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "app", "a")
	mustIndex(t, c, coll, spec("x_1", d("x", 1)))
	if _, err := c.Apply(func(w *Writer) error {
		w.Unlogged()
		return w.PutDocument(coll, d("_id", 1, "x", 1), nil)
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Apply(func(w *Writer) error {
		w.Unlogged()
		_, err := w.DeleteDocument(coll, int32(1))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	top, _ := c.Oplog().Top()
	e := &oplog.Entry{Op: oplog.OpInsert, NS: coll.NS(), UI: &coll.UUID, O: d("_id", 2),
		TS: bson.Timestamp{T: top.T + 10, I: 1}, Term: 1}
	if _, err := c.Apply(func(w *Writer) error {
		w.Unlogged()
		if err := w.PutDocument(coll, e.O, nil); err != nil {
			return err
		}
		return w.AppendOplog(e)
	}); !errors.Is(err, errUnlogged) {
		t.Fatalf("unlogged batch appended an entry: %v", err)
	}
	if n := live(c, coll).Count(); n != 0 {
		t.Fatalf("count %d", n)
	}
	mustVerify(t, c)
}

// TestApplyRelaxUnique: a relaxed batch tolerates a unique conflict and,
// once it commits, lists the index in the caller's set; a relaxed batch
// that fails lists nothing; other batches enforce the constraint; the
// rebuild of the listed indexes leaves them matching the documents.
func TestApplyRelaxUnique(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "app", "a")
	mustIndex(t, c, coll, spec("u_1", d("u", 1), "unique", true))
	mustInsert(t, c, coll, d("_id", 1, "u", 1))
	put := func(doc bson.D) func(w *Writer) error {
		return func(w *Writer) error { w.Unlogged(); return w.PutDocument(coll, doc, nil) }
	}
	var dup *DuplicateKeyError
	if _, err := c.Apply(put(d("_id", 2, "u", 1))); !mongoerrAs(err, &dup) {
		t.Fatalf("strict batch: %v", err)
	}
	rebuild := IndexSet{}
	boom := errors.New("boom")
	if _, err := c.Apply(func(w *Writer) error {
		w.RelaxUnique(rebuild)
		if err := put(d("_id", 2, "u", 1))(w); err != nil {
			return err
		}
		return boom
	}); !errors.Is(err, boom) || len(rebuild) != 0 {
		t.Fatalf("failed relaxed batch: %v, listed %v", err, rebuild)
	}
	if _, err := c.Apply(func(w *Writer) error {
		if err := put(d("_id", 2, "u", 1))(w); err != nil { // before RelaxUnique: strict
			return err
		}
		w.RelaxUnique(rebuild)
		return put(d("_id", 3, "u", 1))(w)
	}); err == nil {
		t.Fatal("a write before RelaxUnique should be strict")
	}
	if _, err := c.Apply(func(w *Writer) error {
		w.RelaxUnique(rebuild)
		return put(d("_id", 2, "u", 1))(w)
	}); err != nil {
		t.Fatalf("relaxed batch: %v", err)
	}
	idx := live(c, coll).Indexes()[1]
	if len(rebuild) != 1 || !rebuild[IndexRef{Coll: coll.ID, Index: idx.ID}] {
		t.Fatalf("listed %v, want index %d of %d", rebuild, idx.ID, coll.ID)
	}
	if _, err := c.Apply(put(d("_id", 1, "u", 5))); err != nil { // resolves the conflict
		t.Fatal(err)
	}
	if r, _ := c.Check(); r.OK() {
		t.Fatal("expected the tolerated conflict to show before the rebuild")
	}
	if n, err := c.RebuildIndexes(rebuild); err != nil || n != 1 {
		t.Fatalf("rebuild = %d, %v", n, err)
	}
	mustVerify(t, c)
}
