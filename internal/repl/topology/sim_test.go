package topology

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

var (
	simSeed  = flag.Uint64("seed", 0, "seed for TestSimulation (0: seeds 1..-seeds)")
	simSeeds = flag.Int("seeds", 5, "number of seeds TestSimulation runs when -seed is 0")
)

// TestSimulation runs sets of 3, 7 and 15 members, with chaining allowed
// and in chainingMode "auto", over a network that delays and drops
// messages, with writes, kills, restarts and partitions. It checks election
// safety (one primary per term), that no majority-committed entry is
// missing from a later primary's oplog, and liveness: once the chaos stops
// and the network heals, every live member reaches the primary's last
// OpTime within catchUpBound of the last write.
func TestSimulation(t *testing.T) {
	var seeds []uint64
	for s := 1; s <= *simSeeds; s++ {
		seeds = append(seeds, uint64(s))
	}
	if *simSeed != 0 {
		seeds = []uint64{*simSeed}
	}
	for _, mode := range []string{"true", "auto"} {
		for _, n := range []int{3, 7, 15} {
			for _, seed := range seeds {
				t.Run(fmt.Sprintf("chaining=%s/n=%d/seed=%d", mode, n, seed), func(t *testing.T) {
					t.Logf("seed %d (rerun with -run 'TestSimulation/chaining=%s/n=%d/' -seed=%d)", seed, mode, n, seed)
					simulate(t, n, seed, mode, 60*time.Second)
				})
			}
		}
	}
}

var simHook func(cl *cluster)

type simChecker struct {
	t         *testing.T
	cl        *cluster
	leaders   map[int64]int // term -> member that won it
	committed []OpTime      // longest majority-committed oplog prefix
	elections int
}

func (s *simChecker) observe(n *node, a Action) {
	id := s.cl.id(n.idx)
	switch a := a.(type) {
	case ElectionWon:
		s.elections++
		if prev, ok := s.leaders[a.Term]; ok && prev != id {
			s.t.Fatalf("two primaries in term %d: n%d and n%d", a.Term, prev, id)
		}
		s.leaders[a.Term] = id
		if commonPrefix(n.oplog, s.committed) < len(s.committed) {
			s.t.Fatalf("n%d won term %d without committed entries: has %v, committed %v", id, a.Term, n.oplog, s.committed)
		}
	case CommitPointAdvanced:
		if n.c.State() != StatePrimary {
			return
		}
		k := slices.Index(n.oplog, a.OpTime)
		if k < 0 {
			s.t.Fatalf("n%d committed %s not in its oplog", id, a.OpTime)
		}
		prefix := n.oplog[:k+1]
		if commonPrefix(prefix, s.committed) < min(len(prefix), len(s.committed)) {
			k := commonPrefix(prefix, s.committed)
			s.t.Fatalf("n%d commits %s diverging from committed at index %d: has %v, committed %v",
				id, a.OpTime, k, prefix[k:], s.committed[k:])
		}
		if len(prefix) > len(s.committed) {
			s.committed = slices.Clone(prefix)
		}
	}
}

func simulate(t *testing.T, n int, seed uint64, mode string, d time.Duration) {
	rng := rand.New(rand.NewPCG(seed, 99))
	voters := min(n, 7)
	cfg := NewConfig("rs0")
	for i := range n {
		m := NewMember(i, fmt.Sprintf("n%d", i))
		if i >= voters {
			m.Votes, m.Priority = 0, 0
		}
		cfg.Members = append(cfg.Members, m)
	}
	if mode == "auto" {
		cfg.Settings.ChainingMode = "auto"
	}
	cl := newCluster(cfg, seed)
	cl.net = &simNet{rng: rng, maxDelay: 30 * time.Millisecond, dropPct: 5, pullPct: 30, batch: 8, applyPct: 30, applyBatch: 4}
	for i := range cl.pos {
		cl.pos[i] = rng.Float64() * 20 // RTTs of 0.2-20 ms: chaining pays
	}
	chk := &simChecker{t: t, cl: cl, leaders: map[int64]int{}}
	cl.onAction = chk.observe
	for end := cl.now.Add(d); cl.now.Before(end); {
		cl.step(10 * time.Millisecond)
		chaos(cl, rng, voters)
		if simHook != nil {
			simHook(cl)
		}
	}
	if chk.elections == 0 || len(chk.committed) == 0 {
		t.Fatalf("no progress: %d elections, %d committed entries", chk.elections, len(chk.committed))
	}
	checkCatchUp(t, cl, seed)
	t.Logf("%d elections, %d terms, %d committed entries", chk.elections, len(chk.leaders), len(chk.committed))
}

// chaos writes on primaries and now and then kills, restarts, partitions
// and heals.
func chaos(cl *cluster, rng *rand.Rand, voters int) {
	for _, nd := range cl.nodes {
		if rng.IntN(10) == 0 {
			for range 1 + rng.IntN(8) { // bursts of load
				cl.write(nd)
			}
		}
	}
	switch r := rng.IntN(1000); {
	case r < 3:
		cl.nodes[rng.IntN(voters)].alive = false
	case r < 8:
		if nd := cl.nodes[rng.IntN(len(cl.nodes))]; !nd.alive {
			cl.start(nd)
		}
	case r < 10:
		for i := range cl.nodes {
			j := rng.IntN(len(cl.nodes))
			cl.cut[[2]int{i, j}], cl.cut[[2]int{j, i}] = true, true
		}
	case r < 14:
		cl.cut = map[[2]int]bool{}
	}
}
