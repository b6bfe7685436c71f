//go:build invariants

package catalog

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/invariants"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/storage"
)

// An Apply batch is exempt from the storage invariants check's rule "a
// document and its oplog entry share one batch" only when it calls
// Writer.Unlogged: a replication batch (the applier's shape: the entry's
// effect, the entry and the appliedThrough marker) that writes a document
// and loses its entry must fail its commit, not be taken for cloning or
// a rollback restore.

var appliedKey = []byte{storage.PrefixRepl, 'a', 'p', 'p', 'l', 'i', 'e', 'd'}

// applyViolates runs fn in an Apply batch and expects the commit to panic
// with an invariant violation mentioning want; nothing may be committed.
func applyViolates(t *testing.T, c *Catalog, coll *Collection, want string, fn func(w *Writer) error) {
	t.Helper()
	count := live(c, coll).Count()
	func() {
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
		}()
		_, _ = c.Apply(fn)
	}()
	if n := live(c, coll).Count(); n != count {
		t.Fatalf("count %d after the violating batch, want %d", n, count)
	}
	if _, ok, _ := c.Marker(appliedKey); ok {
		t.Fatal("the violating batch's marker was committed")
	}
}

// insertEntry is a replicated insert of doc into coll after the oplog top.
func insertEntry(c *Catalog, coll *Collection, doc bson.D) *oplog.Entry {
	top, _ := c.Oplog().Top()
	return &oplog.Entry{Op: oplog.OpInsert, NS: coll.NS(), UI: &coll.UUID, O: doc,
		TS: bson.Timestamp{T: top.T + 10, I: 1}, Term: 1}
}

func TestInvariantApplierBatchWithoutItsEntry(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "app", "a")
	mustIndex(t, c, coll, spec("x_1", d("x", 1)))
	e := insertEntry(c, coll, d("_id", 1, "x", 1))
	applyViolates(t, c, coll, "holds no oplog entry and is not marked unlogged", func(w *Writer) error {
		if err := w.PutDocument(coll, e.O, nil); err != nil {
			return err
		}
		// the entry is lost: no w.AppendOplog(e)
		return w.PutMarker(appliedKey, []byte{1})
	})
}

func TestInvariantApplierDeleteWithoutItsEntry(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "app", "a")
	mustInsert(t, c, coll, d("_id", 1))
	applyViolates(t, c, coll, "without an oplog entry for it", func(w *Writer) error {
		if _, err := w.DeleteDocument(coll, int32(1)); err != nil {
			return err
		}
		return w.PutMarker(appliedKey, []byte{1})
	})
}

// An applier batch whose entry names another document (a wrong _id, as a
// batch mixing up two entries would have) fails too. The slot the failed
// commit reserved is not given back (the panic skips it): the catalog is
// not used afterwards.
func TestInvariantApplierBatchWithAnotherDocumentsEntry(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "app", "a")
	e := insertEntry(c, coll, d("_id", 2))
	applyViolates(t, c, coll, "oplog entries name i app.a _id 2", func(w *Writer) error {
		if err := w.PutDocument(coll, d("_id", 1), nil); err != nil {
			return err
		}
		if err := w.AppendOplog(e); err != nil {
			return err
		}
		return w.PutMarker(appliedKey, []byte{1})
	})
}

// The legitimate shapes commit: the applier's batch with its entry, and a
// batch marked unlogged (cloning, restores) without one.
func TestInvariantApplyLegitimateShapesPass(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "app", "a")
	mustIndex(t, c, coll, spec("x_1", d("x", 1)))
	e := insertEntry(c, coll, d("_id", 1, "x", 1))
	if _, err := c.Apply(func(w *Writer) error {
		if err := w.PutDocument(coll, e.O, nil); err != nil {
			return err
		}
		if err := w.AppendOplog(e); err != nil {
			return err
		}
		return w.PutMarker(appliedKey, []byte{1})
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Apply(func(w *Writer) error {
		w.Unlogged()
		if err := w.PutDocument(coll, d("_id", 2, "x", 2), nil); err != nil {
			return err
		}
		_, err := w.DeleteDocument(coll, int32(1))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	local, err := c.EnsureLocalCollection("replset.test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Apply(func(w *Writer) error { // the local database has no entries
		return w.PutDocument(local, d("_id", 1), nil)
	}); err != nil {
		t.Fatal(err)
	}
	if n := live(c, coll).Count(); n != 1 {
		t.Fatalf("count %d", n)
	}
	mustVerify(t, c)
}
