package catalog

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/oplog"
)

var errBoom = errors.New("boom")

// TestForkJoin: documents written by sub-writers commit with the parent's
// batch, counters and multikey flags summed; nothing commits when the
// parent fails; a writer that has written cannot fork; unique and capped
// collections are not per-document.
func TestForkJoin(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "app", "a")
	mustIndex(t, c, coll, spec("tags_1", d("tags", 1)))
	mustInsert(t, c, coll, d("_id", 0, "tags", 1))
	top, _ := c.Oplog().Top()
	write := func(fail bool) error {
		_, err := c.Apply(func(w *Writer) error {
			subs, err := w.Fork(2)
			if err != nil {
				return err
			}
			for i, s := range subs {
				if err := s.PutDocument(coll, d("_id", i+1, "tags", bson.A{i, "x"}), nil); err != nil {
					return err
				}
			}
			if _, err := subs[1].DeleteDocument(coll, 0); err != nil {
				return err
			}
			if err := w.Join(subs); err != nil {
				return err
			}
			if fail {
				return errBoom
			}
			for _, e := range []*oplog.Entry{
				{Op: oplog.OpInsert, O: d("_id", 1, "tags", bson.A{0, "x"})},
				{Op: oplog.OpInsert, O: d("_id", 2, "tags", bson.A{1, "x"})},
				{Op: oplog.OpDelete, O: d("_id", 0)},
			} {
				top.I++
				e.NS, e.UI, e.TS, e.Term = coll.NS(), &coll.UUID, top, 1
				if err := w.AppendOplog(e); err != nil {
					return err
				}
			}
			return nil
		})
		return err
	}
	if err := write(true); err != errBoom || live(c, coll).Count() != 1 {
		t.Fatalf("failed parent: %v, count %d", err, live(c, coll).Count())
	}
	if err := write(false); err != nil {
		t.Fatal(err)
	}
	l := live(c, coll)
	if l.Count() != 2 || !l.Indexes()[1].Multikey {
		t.Fatalf("count %d, multikey %v", l.Count(), l.Indexes()[1].Multikey)
	}
	if _, ok, _ := l.FindByID(0); ok {
		t.Fatal("the deleted document is there")
	}
	mustVerify(t, c)
	if _, err := c.Apply(func(w *Writer) error {
		if err := w.PutDocument(coll, d("_id", 9), nil); err != nil {
			return err
		}
		_, err := w.Fork(2)
		return err
	}); err == nil {
		t.Fatal("a writer that has written forked")
	}
	uq := mustColl(t, c, "app", "uq")
	mustIndex(t, c, uq, spec("u_1", d("u", 1), "unique", true))
	capped, err := c.CreateCollection("app", "capped", d("capped", true, "size", int64(4096)))
	if err != nil {
		t.Fatal(err)
	}
	if !live(c, coll).PerDocumentWrites() || live(c, uq).PerDocumentWrites() || capped.PerDocumentWrites() {
		t.Fatal("PerDocumentWrites: want plain true, unique and capped false")
	}
}
