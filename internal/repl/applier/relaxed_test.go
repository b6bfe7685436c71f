package applier

import (
	"errors"
	"testing"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/oplog"
)

// TestApplyRelaxedBatches: with BatchOptions.Relaxed (initial sync) a
// unique conflict, of a document write or of an index build, is
// tolerated and its index listed, and an update that does not apply is
// skipped; without it (steady state) both are errors. Rebuilding the
// listed indexes once the data is consistent leaves them matching the
// documents.
func TestApplyRelaxedBatches(t *testing.T) {
	s := openMem(t)
	coll := mustColl(t, s, "app", "a")
	mustIndex(t, s, coll, spec("u_1", d("u", 1), "unique", true))
	mustInsert(t, s, coll, d("_id", 1, "u", 1, "w", 1), d("_id", 2, "u", 2, "w", 1))
	ns, ui := coll.NS(), &coll.UUID
	apply := func(o BatchOptions, e oplog.Entry) error {
		_, err := ApplyBatchWith(s, []*oplog.Entry{next(s, e)}, nil, o)
		return err
	}
	strict := BatchOptions{}
	rebuild := catalog.IndexSet{}
	relaxed := BatchOptions{Relaxed: rebuild}

	conflict := oplog.Entry{Op: "i", NS: ns, UI: ui, O: d("_id", 3, "u", 1)}
	var dup *catalog.DuplicateKeyError
	if err := apply(strict, conflict); !errors.As(err, &dup) {
		t.Fatalf("strict unique conflict: %v", err)
	}
	notApplying := oplog.Entry{Op: "u", NS: ns, UI: ui, O: d("_id", 9, "u", 9), O2: d("_id", 2)} // changes _id
	if err := apply(strict, notApplying); err == nil {
		t.Fatal("strict: an update that does not apply was applied")
	}
	if len(rebuild) != 0 {
		t.Fatalf("strict batches listed %v", rebuild)
	}

	if err := apply(relaxed, conflict); err != nil {
		t.Fatalf("relaxed unique conflict: %v", err)
	}
	if err := apply(relaxed, notApplying); err != nil {
		t.Fatalf("relaxed update that does not apply: %v", err)
	}
	build := oplog.Entry{Op: "c", NS: "app.$cmd", UI: ui, O: d("createIndexes", "a", "v", int32(2), "key", d("w", 1), "name", "w_1", "unique", true)}
	if err := apply(relaxed, build); err != nil {
		t.Fatalf("relaxed index build over duplicates: %v", err)
	}
	idxs := live(s, coll).Indexes()
	if len(idxs) != 3 || len(rebuild) != 2 ||
		!rebuild[catalog.IndexRef{Coll: coll.ID, Index: idxs[1].ID}] || !rebuild[catalog.IndexRef{Coll: coll.ID, Index: idxs[2].ID}] {
		t.Fatalf("indexes to rebuild %v, indexes %v", rebuild, idxs)
	}

	// Later entries make the data consistent; the rebuild fixes the indexes.
	for _, e := range []oplog.Entry{
		{Op: "d", NS: ns, UI: ui, O: d("_id", 3)},
		{Op: "u", NS: ns, UI: ui, O: d("$set", d("w", 2)), O2: d("_id", 2)},
	} {
		if err := apply(relaxed, e); err != nil {
			t.Fatal(err)
		}
	}
	if r, _ := s.Check(); r.OK() {
		t.Fatal("expected the tolerated conflicts to show before the rebuild")
	}
	if n, err := s.RebuildIndexes(rebuild); err != nil || n != 2 {
		t.Fatalf("rebuild = %d, %v", n, err)
	}
	mustVerify(t, s)
	if err := apply(strict, oplog.Entry{Op: "i", NS: ns, UI: ui, O: d("_id", 4, "w", 2)}); !errors.As(err, &dup) {
		t.Fatalf("strict conflict on the rebuilt index: %v", err)
	}
}
