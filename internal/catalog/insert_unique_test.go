package catalog

import (
	"fmt"
	"reflect"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/storage"
)

// TestConcurrentInsertsOfOneID: goroutines racing to insert the same _id
// (each round a new _id above every earlier one, the fast path of
// putDoc, then an old one again): exactly one wins, every other gets
// 11000 with MongoDB's message and keyValue.
func TestConcurrentInsertsOfOneID(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	const writers = 16
	for round, id := range []any{int64(10), int64(20), int64(10), "s", bson.ObjectID{9}, int64(5)} {
		var wg sync.WaitGroup
		errs := make([]error, writers)
		for g := 0; g < writers; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				_, errs[g] = c.Insert(coll, d("_id", id, "g", g))
			}(g)
		}
		wg.Wait()
		wins := 0
		for _, err := range errs {
			if err == nil {
				wins++
				continue
			}
			var dk *DuplicateKeyError
			if !mongoerrAs(err, &dk) || !mongoerr.Is(err, mongoerr.DuplicateKey) {
				t.Fatalf("round %d: want DuplicateKey, got %v", round, err)
			}
			want := fmt.Sprintf("E11000 duplicate key error collection: db.c index: _id_ dup key: { _id: %s }", formatKeyValue(id))
			if dk.Err.Msg != want || !reflect.DeepEqual(dk.KeyValue, d("_id", id)) || !reflect.DeepEqual(dk.KeyPattern, d("_id", int32(1))) {
				t.Fatalf("round %d: got %q %v %v", round, dk.Err.Msg, dk.KeyValue, dk.KeyPattern)
			}
		}
		first := round == 0 || round == 1 || round == 3 || round == 4 || round == 5
		if want := map[bool]int{true: 1, false: 0}[first]; wins != want {
			t.Fatalf("round %d (_id %v): %d inserts succeeded, want %d", round, id, wins, want)
		}
	}
	if n := live(c, coll).Count(); n != 5 {
		t.Fatalf("count %d, want 5", n)
	}
}

// TestInsertDuplicateOfGreatestIDAfterRestart: the _id bound of a
// collection is rebuilt from the store after a restart, so the greatest
// _id is still found (and one above it is not).
func TestInsertDuplicateOfGreatestIDAfterRestart(t *testing.T) {
	dir := t.TempDir()
	open := func() *Catalog {
		c, err := Open(Options{Storage: storage.Options{Dir: dir}, TTLInterval: -1})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := open()
	coll := mustColl(t, c, "db", "c")
	mustInsert(t, c, coll, d("_id", 1), d("_id", 3), d("_id", 2))
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	c = open()
	defer c.Close()
	coll = c.Collection("db", "c")
	for _, tc := range []struct {
		id  int
		dup bool
	}{{3, true}, {2, true}, {4, false}, {4, true}, {0, false}} {
		_, err := c.Insert(coll, d("_id", tc.id))
		if got := mongoerr.Is(err, mongoerr.DuplicateKey); got != tc.dup || (!tc.dup && err != nil) {
			t.Fatalf("insert _id %d: %v (want duplicate: %v)", tc.id, err, tc.dup)
		}
	}
}
