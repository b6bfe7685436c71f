package catalog

import (
	"fmt"
	"math/rand"
	"sync"
	"testing"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// TestInsertHashedIDsFindEveryDuplicate: _ids in random order (below the
// collection's bound, so the existence filter decides, storage/docfilter.go)
// inserted twice each by concurrent writers: exactly one insert of each
// wins and every other gets DuplicateKey; documents written by the Writer
// path (the applier's, transactions') are duplicates too; a deleted _id
// can be inserted again.
func TestInsertHashedIDsFindEveryDuplicate(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	const n, writers = 3000, 8
	ids := make([]int64, 0, 2*n)
	for i := 0; i < n; i++ {
		ids = append(ids, int64(i)*7919%100003, int64(i)*7919%100003)
	}
	rand.New(rand.NewSource(1)).Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	var wins, dups sync.Map
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for g := 0; g < writers; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := g; i < len(ids); i += writers {
				_, err := c.Insert(coll, d("_id", ids[i], "g", g))
				switch {
				case err == nil:
					if _, again := wins.LoadOrStore(ids[i], true); again {
						errs <- fmt.Errorf("_id %d inserted twice", ids[i])
						return
					}
				case mongoerr.Is(err, mongoerr.DuplicateKey):
					dups.Store(ids[i], true)
				default:
					errs <- err
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := live(c, coll).Count(); got != n {
		t.Fatalf("count %d, want %d", got, n)
	}
	// Written by the Writer path (unlogged, as initial sync's cloning),
	// then inserted: a duplicate.
	if _, err := c.Apply(func(w *Writer) error { w.Unlogged(); return w.PutDocument(coll, d("_id", int64(-5)), nil) }); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Insert(coll, d("_id", int64(-5))); !mongoerr.Is(err, mongoerr.DuplicateKey) {
		t.Fatalf("insert of an _id the Writer stored: %v, want DuplicateKey", err)
	}
	// Deleted, then inserted again: no duplicate.
	if _, err := c.Apply(func(w *Writer) error { w.Unlogged(); _, err := w.DeleteDocument(coll, ids[0]); return err }); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Insert(coll, d("_id", ids[0])); err != nil {
		t.Fatalf("insert after delete: %v", err)
	}
	if _, err := c.Insert(coll, d("_id", ids[0])); !mongoerr.Is(err, mongoerr.DuplicateKey) {
		t.Fatalf("second insert after delete: %v, want DuplicateKey", err)
	}
}
