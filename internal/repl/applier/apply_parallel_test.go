package applier

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/oplog"
)

// parallelWorkload writes what parallel writers must keep apart or in
// order (text, hashed and collated indexes compute keys concurrently): one _id inserted, updated, deleted and re-inserted (sometimes
// as a double equal to the int32 it replaces, the same document key),
// unique-index values handed between documents (including a value taken
// and released by one document and then taken by another, which writers
// merged in the wrong order would lose), and a capped collection.
func parallelWorkload(t testing.TB, c *catalog.Catalog, rng *rand.Rand, n int) {
	t.Helper()
	c.Oplog().SetTerm(1)
	plain := mustColl(t, c, "par", "plain")
	mustIndex(t, c, plain, spec("a_1", d("a", 1)), spec("tags_1", d("tags", 1)), spec("t_text", d("t", "text")),
		spec("h_hashed", d("h", "hashed")), spec("s_1", d("s", 1), "collation", d("locale", "fr", "strength", int32(2))))
	uq := mustColl(t, c, "par", "uq")
	mustIndex(t, c, uq, spec("u_1", d("u", 1), "unique", true, "sparse", true), spec("a_1", d("a", 1)))
	capped, err := c.CreateCollection("par", "capped", d("capped", true, "size", int64(1<<20)))
	must(t, err)
	owner := map[int32]int32{} // unique value -> _id holding it
	held := map[int32]int32{}  // _id -> unique value (absent: none)
	for i := 0; i < n; i++ {
		id := int32(rng.IntN(16))
		switch rng.IntN(3) {
		case 0:
			plainStep(t, c, plain, rng, id)
		case 1:
			uniqueStep(t, c, uq, rng, id, owner, held)
		default:
			plainStep(t, c, capped, rng, id)
		}
	}
}

// plainStep inserts, updates or deletes document id of coll.
func plainStep(t testing.TB, c *catalog.Catalog, coll *catalog.Collection, rng *rand.Rand, id int32) {
	t.Helper()
	_, exists, err := live(c, coll).FindByID(id)
	must(t, err)
	switch {
	case !exists && rng.IntN(2) == 0:
		mustInsert(t, c, coll, d("_id", float64(id), "a", int32(rng.IntN(4))))
	case !exists:
		mustInsert(t, c, coll, d("_id", id, "a", int32(rng.IntN(4)), "tags", bson.A{"x", int32(rng.IntN(3))},
			"t", fmt.Sprint("running foxes jumped ", rng.IntN(5)), "h", int32(rng.IntN(7)), "s", fmt.Sprint("Été", rng.IntN(3))))
	case rng.IntN(3) == 0:
		mustDelete(t, c, coll, id)
	case rng.IntN(2) == 0:
		mustUpdate(t, c, coll, id, d("$set", d("a", int32(rng.IntN(4)), "tags", bson.A{int32(rng.IntN(3)), "y"})))
	default:
		mustUpdate(t, c, coll, id, d("_id", id, "a", fmt.Sprint("r", rng.IntN(3))))
	}
}

// uniqueStep changes document id of the unique collection: insert it
// with a free value, move it to a free value, release its value, or
// delete it.
func uniqueStep(t testing.TB, c *catalog.Catalog, coll *catalog.Collection, rng *rand.Rand, id int32, owner, held map[int32]int32) {
	t.Helper()
	_, exists, err := live(c, coll).FindByID(id)
	must(t, err)
	free := int32(-1)
	if v := int32(rng.IntN(6)); owner[v] == 0 {
		free = v
	}
	old, has := held[id]
	switch {
	case !exists && free >= 0:
		mustInsert(t, c, coll, d("_id", id, "u", free))
		owner[free], held[id] = id+100, free
		return
	case !exists:
		mustInsert(t, c, coll, d("_id", id, "a", int32(1)))
		return
	case rng.IntN(5) == 0:
		mustDelete(t, c, coll, id)
	case free >= 0:
		mustUpdate(t, c, coll, id, d("$set", d("u", free)))
		owner[free] = id + 100
		defer func() { held[id] = free }()
	default:
		mustUpdate(t, c, coll, id, d("$unset", d("u", true)))
	}
	if has {
		delete(owner, old)
		delete(held, id)
	}
}

// TestApplyParallelWritersMatchSerial: runs applied by 1, 2, 4 and 8
// writers (with and without the steady-state insert shortcut) leave the
// same catalog, oplog and counters as one batch per entry and as the
// primary; runs with several writers really took the parallel path.
func TestApplyParallelWritersMatchSerial(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 9))
			p := openMem(t)
			parallelWorkload(t, p, rng, 2500)
			randomWorkload(t, p, rng, 300)
			uniqueWorkload(t, p, rng, 100)
			entries := entriesOf(t, p)
			serial := openMem(t)
			applySplit(t, serial, rng, cloneEntries(entries), BatchOptions{serial: true})
			mustSameState(t, p, serial)
			for _, writers := range []int{1, 2, 4, 8} {
				for _, fresh := range []bool{false, true} {
					before := parallelRuns.Load()
					s := openMem(t)
					applySplit(t, s, rng, cloneEntries(entries), BatchOptions{Writers: writers, FreshInserts: fresh})
					mustSameState(t, serial, s)
					mustSameState(t, p, s)
					mustSameOplog(t, p, s)
					if ran := parallelRuns.Load() - before; (ran > 0) != (writers > 1) {
						t.Fatalf("writers %d: %d parallel runs", writers, ran)
					}
				}
			}
		})
	}
}

// TestPartitionKeepsDocumentsTogether: one document's entries (whatever
// the numeric type of its _id) go to one writer, a collection with a
// unique secondary index or a capped one to one writer in all, other
// documents are spread.
func TestPartitionKeepsDocumentsTogether(t *testing.T) {
	p := openMem(t)
	plain := mustColl(t, p, "par", "plain")
	uq := mustColl(t, p, "par", "uq")
	mustIndex(t, p, uq, spec("u_1", d("u", 1), "unique", true))
	capped, err := p.CreateCollection("par", "capped", d("capped", true, "size", int64(1<<20)))
	must(t, err)
	var run []*oplog.Entry
	for i := int32(0); i < 64; i++ {
		for _, coll := range []*catalog.Collection{plain, uq, capped} {
			run = append(run,
				&oplog.Entry{Op: oplog.OpInsert, NS: coll.NS(), UI: &coll.UUID, O: d("_id", i)},
				&oplog.Entry{Op: oplog.OpUpdate, NS: coll.NS(), UI: &coll.UUID, O: d("$set", d("a", 1)), O2: d("_id", float64(i))},
				&oplog.Entry{Op: oplog.OpDelete, NS: coll.NS(), UI: &coll.UUID, O: d("_id", int64(i))})
		}
	}
	parts := partition(p, run, 4)
	where := map[string]map[int]bool{}
	for w, part := range parts {
		for _, e := range part {
			id, _ := entryID(e)
			for _, k := range []string{e.NS, fmt.Sprint(e.NS, "/", id)} {
				if where[k] == nil {
					where[k] = map[int]bool{}
				}
				where[k][w] = true
			}
		}
	}
	for i := 0; i < 64; i++ {
		if k := fmt.Sprint(plain.NS(), "/", i); len(where[k]) != 1 {
			t.Fatalf("%s is in writers %v", k, where[k])
		}
	}
	for _, coll := range []*catalog.Collection{uq, capped} {
		if len(where[coll.NS()]) != 1 {
			t.Fatalf("%s is in writers %v, want one", coll.NS(), where[coll.NS()])
		}
	}
	if len(where[plain.NS()]) < 3 {
		t.Fatalf("%s is in writers %v, want spread", plain.NS(), where[plain.NS()])
	}
}
