package applier

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl/markers"
)

// TestApplyFreshInsertsMatchUpsert: steady-state application with the
// insert probe skipped (FreshInserts), in runs of any split and one entry
// per batch, leaves the same catalog, oplog and appliedThrough as the
// probing application and as the primary; the catalog verifies (every
// index entry and counter). In -tags invariants builds InsertFresh also
// checks each _id really was absent.
func TestApplyFreshInsertsMatchUpsert(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 16))
			p := openMem(t)
			primaryWorkload(t, p)
			randomWorkload(t, p, rng, 600)
			uniqueWorkload(t, p, rng, 150)
			entries := entriesOf(t, p)
			probe := openMem(t)
			applySplit(t, probe, rng, cloneEntries(entries), BatchOptions{})
			for _, o := range []BatchOptions{{FreshInserts: true, serial: true},
				{FreshInserts: true, Writers: 1}, {FreshInserts: true, Writers: 2}} {
				s := openMem(t)
				applySplit(t, s, rng, cloneEntries(entries), o)
				mustSameState(t, probe, s)
				mustSameState(t, p, s)
				mustSameOplog(t, p, s)
				mustVerify(t, s)
				m, err := markers.Read(s)
				must(t, err)
				if top := entries[len(entries)-1]; m.AppliedThrough != top.OpTime() {
					t.Fatalf("appliedThrough %v want %v", m.AppliedThrough, top.OpTime())
				}
			}
		})
	}
}

// TestApplierFreshInsertsWaitForMinValid: after the oplog is truncated
// with the data left ahead of it (minValid raised, as after a rollback),
// an Applier with FreshInserts probes again until it reaches minValid, so
// re-applying inserts of documents that are present converges. Skipping
// the probe there would count those documents twice and keep their old
// index entries.
func TestApplierFreshInsertsWaitForMinValid(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 17))
			p := openMem(t)
			randomWorkload(t, p, rng, 300)
			entries := entriesOf(t, p)
			s := openMem(t)
			ap := New(s, Options{FreshInserts: true})
			applyIn(t, ap, rng, cloneEntries(entries))
			mustSameState(t, p, s)
			k := rng.IntN(len(entries) / 2)
			_, err := markers.TruncateOplogAfter(s, entries[k].TS)
			must(t, err)
			if ap.Reset(); ap.freshInserts() {
				t.Fatal("fresh inserts on before minValid")
			}
			applyIn(t, ap, rng, cloneEntries(entries[k+1:]))
			mustSameState(t, p, s)
			mustSameOplog(t, p, s)
			mustVerify(t, s)
			if !ap.freshInserts() {
				t.Fatal("fresh inserts still off after minValid")
			}
		})
	}
}

// applyIn applies entries through ap in random batches.
func applyIn(t *testing.T, ap *Applier, rng *rand.Rand, entries []*oplog.Entry) {
	t.Helper()
	for i := 0; i < len(entries); {
		n := 1 + rng.IntN(40)
		if _, err := ap.Apply(context.Background(), entries[i:min(i+n, len(entries))]); err != nil {
			t.Fatal(err)
		}
		i += n
	}
}
