//go:build invariants

package catalog

import (
	"strings"
	"testing"

	"github.com/relaydb/relaydb/internal/invariants"
)

// In an invariants build, InsertFresh of an _id that is present panics:
// a wrong use of the fast path is caught by any test that makes it.
func TestInvariantInsertFreshOfPresentID(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "f", "c")
	mustInsert(t, c, coll, d("_id", 1))
	defer func() {
		r := recover()
		v, ok := r.(invariants.Violation)
		if !ok || !strings.Contains(v.Error(), "InsertFresh") {
			t.Fatalf("recovered %v, want an InsertFresh invariant violation", r)
		}
	}()
	_, _ = c.Apply(func(w *Writer) error { return w.InsertFresh(coll, d("_id", 1, "x", 2), nil) })
	t.Fatal("InsertFresh of a present _id did not panic")
}
