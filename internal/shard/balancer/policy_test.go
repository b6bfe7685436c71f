package balancer

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/shard/routing"
)

const mb = 1 << 20

// chunks builds range chunks [MinKey, b1), [b1, b2), ... [bn, MaxKey) on
// the given shards, in order.
func chunks(owners ...string) []routing.Chunk {
	out := make([]routing.Chunk, len(owners))
	for i, sh := range owners {
		out[i] = routing.Chunk{Min: bound(i, len(owners), true), Max: bound(i, len(owners), false), Shard: sh}
	}
	return out
}

func bound(i, n int, min bool) bson.D {
	switch {
	case min && i == 0:
		return bson.D{{Key: "x", Value: bson.MinKey{}}}
	case !min && i == n-1:
		return bson.D{{Key: "x", Value: bson.MaxKey{}}}
	case min:
		return bson.D{{Key: "x", Value: int64(i * 100)}}
	default:
		return bson.D{{Key: "x", Value: int64((i + 1) * 100)}}
	}
}

func render(ms []Migration) string {
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "%s %s %s->%s max=%dMB %s; ", m.NS, m.Chunk.Range(), m.From, m.To, m.MaxBytes/mb, m.Reason)
	}
	return b.String()
}

func TestPlan(t *testing.T) {
	s := Settings{ChunkSize: 10 * mb}
	two := []Shard{{ID: "sh0"}, {ID: "sh1"}}
	for _, tc := range []struct {
		name   string
		shards []Shard
		colls  []Collection
		want   string
	}{{
		name:   "balanced within the threshold (30 MB = 3 chunk sizes)",
		shards: two,
		colls:  []Collection{{NS: "a.c", Chunks: chunks("sh0", "sh1"), Size: map[string]int64{"sh0": 40 * mb, "sh1": 10 * mb}}},
		want:   "",
	}, {
		name:   "past the threshold: one chunk-sized range from the largest to the smallest",
		shards: two,
		colls:  []Collection{{NS: "a.c", Chunks: chunks("sh0", "sh0"), Size: map[string]int64{"sh0": 41 * mb}}},
		want:   "a.c [{ x: MinKey }, { x: 100 }) sh0->sh1 max=10MB size; ",
	}, {
		name:   "disjoint pairs at once; a shard in one migration only",
		shards: []Shard{{ID: "sh0"}, {ID: "sh1"}, {ID: "sh2"}, {ID: "sh3"}},
		colls: []Collection{
			{NS: "a.c", Chunks: chunks("sh0", "sh1"), Size: map[string]int64{"sh0": 100 * mb, "sh1": 90 * mb}},
			{NS: "b.c", Chunks: chunks("sh0", "sh1"), Size: map[string]int64{"sh0": 100 * mb, "sh1": 90 * mb}},
		},
		want: "a.c [{ x: MinKey }, { x: 100 }) sh0->sh2 max=10MB size; a.c [{ x: 100 }, { x: MaxKey }) sh1->sh3 max=10MB size; ",
	}, {
		name:   "draining first, whole chunks, to the free shard with the least data",
		shards: []Shard{{ID: "sh0"}, {ID: "sh1"}, {ID: "sh2", Draining: true}},
		colls:  []Collection{{NS: "a.c", Chunks: chunks("sh2", "sh2", "sh0"), Size: map[string]int64{"sh0": 5 * mb, "sh2": 5 * mb}}},
		want:   "a.c [{ x: MinKey }, { x: 100 }) sh2->sh1 max=0MB drain; ",
	}, {
		name:   "every shard draining: nowhere to go",
		shards: []Shard{{ID: "sh0", Draining: true}},
		colls:  []Collection{{NS: "a.c", Chunks: chunks("sh0"), Size: map[string]int64{"sh0": 500 * mb}}},
		want:   "",
	}, {
		name:   "the largest shard owns no chunk of the collection (sizes stale): nothing",
		shards: two,
		colls:  []Collection{{NS: "a.c", Chunks: chunks("sh1"), Size: map[string]int64{"sh0": 500 * mb}}},
		want:   "",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(Plan(tc.shards, tc.colls, s)); got != tc.want {
				t.Fatalf("Plan:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestPlanInvariants checks the package invariants on random inputs.
func TestPlanInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 500; i++ {
		shards, colls := randomCluster(rng)
		plan := Plan(shards, colls, Settings{ChunkSize: mb})
		if again := Plan(shards, colls, Settings{ChunkSize: mb}); render(again) != render(plan) {
			t.Fatalf("case %d: not deterministic:\n%s\n%s", i, render(plan), render(again))
		}
		checkRound(t, i, shards, plan)
	}
}

func checkRound(t *testing.T, i int, shards []Shard, plan []Migration) {
	t.Helper()
	draining := map[string]bool{}
	for _, s := range shards {
		draining[s.ID] = s.Draining
	}
	used := map[string]bool{}
	for _, m := range plan {
		if m.From == m.To || used[m.From] || used[m.To] || draining[m.To] || m.Chunk.Shard != m.From {
			t.Fatalf("case %d: bad migration %s in %s", i, render([]Migration{m}), render(plan))
		}
		used[m.From], used[m.To] = true, true
	}
}

func randomCluster(rng *rand.Rand) ([]Shard, []Collection) {
	n := 1 + rng.IntN(6)
	shards := make([]Shard, n)
	ids := make([]string, n)
	for i := range shards {
		ids[i] = fmt.Sprintf("sh%d", i)
		shards[i] = Shard{ID: ids[i], Draining: rng.IntN(5) == 0}
	}
	colls := make([]Collection, 1+rng.IntN(4))
	for c := range colls {
		owners := make([]string, 1+rng.IntN(8))
		size := map[string]int64{}
		for j := range owners {
			owners[j] = ids[rng.IntN(n)]
			size[owners[j]] += int64(rng.IntN(4 * mb))
		}
		colls[c] = Collection{NS: fmt.Sprintf("db.c%d", c), Chunks: chunks(owners...), Size: size}
	}
	return shards, colls
}
