package applier

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl/markers"
)

// randomWorkload runs n seeded random document writes over two
// collections with compound, multikey and sparse indexes.
func randomWorkload(t testing.TB, c *catalog.Catalog, rng *rand.Rand, n int) {
	t.Helper()
	var colls []*catalog.Collection
	for _, name := range []string{"r1", "r2"} {
		coll := mustColl(t, c, "rnd", name)
		mustIndex(t, c, coll, spec("a_1_b_-1", d("a", 1, "b", -1)), spec("tags_1", d("tags", 1)),
			spec("s_1", d("s", 1), "sparse", true))
		colls = append(colls, coll)
	}
	val := func() any {
		switch rng.IntN(4) {
		case 0:
			return int32(rng.IntN(5))
		case 1:
			return fmt.Sprint("v", rng.IntN(5))
		case 2:
			return bson.A{int32(rng.IntN(3)), int32(rng.IntN(3))}
		}
		return nil
	}
	for i := 0; i < n; i++ {
		coll := colls[rng.IntN(len(colls))]
		id := int32(rng.IntN(12))
		_, exists, err := live(c, coll).FindByID(id)
		must(t, err)
		switch {
		case !exists:
			mustInsert(t, c, coll, d("_id", id, "a", val(), "b", int32(rng.IntN(3)), "s", val()))
		case rng.IntN(4) == 0:
			mustDelete(t, c, coll, id)
		case rng.IntN(3) == 0:
			mustUpdate(t, c, coll, id, d("_id", id, "tags", bson.A{val(), val()}))
		default:
			mustUpdate(t, c, coll, id, d("$set", d("a", val(), "tags", val()), "$unset", d("s", true)))
		}
	}
}

func TestApplyRandomWorkloads(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, seed))
			p := openMem(t)
			randomWorkload(t, p, rng, 300)
			entries := entriesOf(t, p)
			s := openMem(t)
			for i := 0; i < len(entries); {
				n := 1 + rng.IntN(40)
				must(t, applyBatch(s, entries[i:min(i+n, len(entries))]))
				i += n
			}
			mustSameState(t, p, s)
			mustSameOplog(t, p, s)
			// Re-apply a random suffix over the final state.
			k := rng.IntN(len(entries))
			_, err := markers.TruncateOplogAfter(s, entries[k].TS)
			must(t, err)
			must(t, applyBatch(s, append([]*oplog.Entry(nil), entries[k+1:]...)))
			mustSameState(t, p, s)
			mustSameOplog(t, p, s)
		})
	}
}
