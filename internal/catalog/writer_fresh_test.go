package catalog

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/oplog"
)

// freshApply applies doc as a replicated insert entry through put
// (PutDocument or InsertFresh) in the applier's batch shape.
func freshApply(t *testing.T, c *Catalog, coll *Collection, doc bson.D, fresh bool, relax IndexSet) {
	t.Helper()
	top, _ := c.Oplog().Top()
	e := &oplog.Entry{Op: oplog.OpInsert, NS: coll.NS(), UI: &coll.UUID, O: doc,
		TS: bson.Timestamp{T: top.T + 10, I: 1}, Term: 1}
	if _, err := c.Apply(func(w *Writer) error {
		if relax != nil {
			w.RelaxUnique(relax)
		}
		put := w.PutDocument
		if fresh {
			put = w.InsertFresh
		}
		if err := put(coll, doc, nil); err != nil {
			return err
		}
		return w.AppendOplog(e)
	}); err != nil {
		t.Fatalf("apply %v: %v", doc, err)
	}
}

// InsertFresh of absent _ids leaves the same documents, index entries
// (multikey, sparse, unique) and counters as PutDocument.
func TestInsertFreshMatchesPutDocument(t *testing.T) {
	var reports []Report
	for _, fresh := range []bool{false, true} {
		c := openMem(t)
		coll := mustColl(t, c, "f", "c")
		mustIndex(t, c, coll, spec("a_1", d("a", 1)), spec("s_1", d("s", 1), "sparse", true),
			spec("u_1", d("u", 1), "unique", true))
		for i := int32(0); i < 20; i++ {
			freshApply(t, c, coll, d("_id", i, "a", bson.A{i, i + 1}, "u", i, "s", i%2), fresh, nil)
		}
		r, err := c.Check()
		if err != nil || !r.OK() {
			t.Fatalf("fresh=%v: check %v %v", fresh, r.Problems, err)
		}
		if n := live(c, coll).Count(); n != 20 {
			t.Fatalf("fresh=%v: count %d", fresh, n)
		}
		r.Problems = nil
		reports = append(reports, r)
	}
	if reports[0].Documents != reports[1].Documents || reports[0].IndexEntries != reports[1].IndexEntries {
		t.Fatalf("PutDocument %+v, InsertFresh %+v", reports[0], reports[1])
	}
}

// A unique secondary index is still enforced by InsertFresh.
func TestInsertFreshKeepsUniqueIndexes(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "f", "c")
	mustIndex(t, c, coll, spec("u_1", d("u", 1), "unique", true))
	freshApply(t, c, coll, d("_id", 1, "u", 1), true, nil)
	_, err := c.Apply(func(w *Writer) error { return w.InsertFresh(coll, d("_id", 2, "u", 1), nil) })
	if err == nil {
		t.Fatal("duplicate unique key accepted")
	}
}

// Where the probe is kept (capped collections, relaxed batches) an
// existing _id is replaced as PutDocument replaces it.
func TestInsertFreshKeepsProbeWhereNeeded(t *testing.T) {
	cases := []struct {
		name  string
		opts  bson.D
		relax IndexSet
	}{
		{"capped", d("capped", true, "size", int64(1<<20)), nil},
		{"relaxed", nil, IndexSet{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := openMem(t)
			coll, err := c.CreateCollection("f", tc.name, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			mustIndex(t, c, coll, spec("a_1", d("a", 1)))
			freshApply(t, c, coll, d("_id", 1, "a", 1), false, nil)
			freshApply(t, c, coll, d("_id", 1, "a", 2), true, tc.relax)
			if n := live(c, coll).Count(); n != 1 {
				t.Fatalf("count %d, want 1", n)
			}
			if r, err := c.Check(); err != nil || !r.OK() {
				t.Fatalf("check %v %v", r.Problems, err)
			}
		})
	}
}
