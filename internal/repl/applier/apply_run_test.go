package applier

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl/markers"
)

// uniqueWorkload moves values of a unique index between documents (via a
// free value, as a client must), so that any reordering of one
// document's entries across another's would hit a duplicate key.
func uniqueWorkload(t testing.TB, c *catalog.Catalog, rng *rand.Rand, n int) {
	t.Helper()
	coll := mustColl(t, c, "rnd", "uq")
	mustIndex(t, c, coll, spec("u_1", d("u", 1), "unique", true))
	const docs = 8
	u := make([]int32, docs)
	for i := range u {
		u[i] = int32(i)
		mustInsert(t, c, coll, d("_id", int32(i), "u", u[i]))
	}
	free := int32(docs)
	for i := 0; i < n; i++ {
		a, b := rng.IntN(docs), rng.IntN(docs)
		if a == b {
			continue
		}
		ua, ub := u[a], u[b]
		mustUpdate(t, c, coll, int32(a), d("$set", d("u", free)))
		mustUpdate(t, c, coll, int32(b), d("$set", d("u", ua)))
		mustUpdate(t, c, coll, int32(a), d("$set", d("u", ub)))
		u[a], u[b] = ub, ua
	}
}

// applySplit applies entries in calls of random sizes with o.
func applySplit(t testing.TB, c *catalog.Catalog, rng *rand.Rand, entries []*oplog.Entry, o BatchOptions) {
	t.Helper()
	for i := 0; i < len(entries); {
		n := 1 + rng.IntN(1500)
		_, err := ApplyBatchWith(c, entries[i:min(i+n, len(entries))], nil, o)
		must(t, err)
		i += n
	}
}

// cloneEntries copies entries, so that each secondary starts from
// decoded entries (the applier sets ORaw on them).
func cloneEntries(entries []*oplog.Entry) []*oplog.Entry {
	out := make([]*oplog.Entry, len(entries))
	for i, e := range entries {
		cp := *e
		cp.ORaw = nil
		out[i] = &cp
	}
	return out
}

// TestApplyRunsMatchSerial: random batches applied in runs (any number
// of preparing goroutines, any split) leave the same catalog, oplog and
// appliedThrough as one batch per entry and as the primary.
func TestApplyRunsMatchSerial(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 15))
			p := openMem(t)
			primaryWorkload(t, p)
			randomWorkload(t, p, rng, 600)
			uniqueWorkload(t, p, rng, 150)
			entries := entriesOf(t, p)
			serial := openMem(t)
			applySplit(t, serial, rng, cloneEntries(entries), BatchOptions{serial: true})
			for _, writers := range []int{1, 2, 5} {
				s := openMem(t)
				applySplit(t, s, rng, cloneEntries(entries), BatchOptions{Writers: writers})
				mustSameState(t, serial, s)
				mustSameState(t, p, s)
				mustSameOplog(t, p, s)
				m, err := markers.Read(s)
				must(t, err)
				if top := entries[len(entries)-1]; m.AppliedThrough != top.OpTime() {
					t.Fatalf("appliedThrough %v want %v", m.AppliedThrough, top.OpTime())
				}
			}
		})
	}
}

// TestApplyRunFailureKeepsPrefix: when an entry of a run fails, the
// entries before it stay applied (one batch each), the ones after it do
// not, and the error is the failing entry's.
func TestApplyRunFailureKeepsPrefix(t *testing.T) {
	p := openMem(t)
	coll := mustColl(t, p, "app", "c")
	mustIndex(t, p, coll, spec("u_1", d("u", 1), "unique", true))
	for i := 1; i <= 6; i++ {
		mustInsert(t, p, coll, d("_id", int32(i), "u", int32(i)))
	}
	entries := entriesOf(t, p) // create, createIndexes, 6 inserts
	s := openMem(t)
	must(t, applyBatch(s, entries[:2]))
	run := cloneEntries(entries[2:])
	run[2].O = d("_id", int32(3), "u", int32(1)) // clashes with _id 1
	_, err := ApplyBatch(s, run, nil)
	var dup *catalog.DuplicateKeyError
	if !errors.As(err, &dup) {
		t.Fatalf("apply: %v", err)
	}
	if got, _ := s.Oplog().Top(); got != run[1].TS {
		t.Fatalf("top %v want %v (the entries before the failing one)", got, run[1].TS)
	}
	if ids := idsAt(t, live(s, coll), nil); fmt.Sprint(ids) != "[1 2]" {
		t.Fatalf("documents %v", ids)
	}
	mustVerify(t, s)
	must(t, applyBatch(s, cloneEntries(entries[4:])))
	mustSameState(t, p, s)
}

// TestApplyRunSkipsPresentPrefix: a batch that starts with entries the
// local oplog holds (a refetch after a restart) applies only the rest.
func TestApplyRunSkipsPresentPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	p := openMem(t)
	randomWorkload(t, p, rng, 200)
	entries := entriesOf(t, p)
	s := openMem(t)
	k := len(entries) / 2
	must(t, applyBatch(s, cloneEntries(entries[:k])))
	must(t, applyBatch(s, cloneEntries(entries)))
	mustSameState(t, p, s)
	mustSameOplog(t, p, s)
}
