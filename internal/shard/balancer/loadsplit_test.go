package balancer

import (
	"math/rand/v2"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func k(v int64) bson.D { return bson.D{{Key: "x", Value: v}} }

func TestLoadSplitter(t *testing.T) {
	for _, tc := range []struct {
		name    string
		gen     func(rng *rand.Rand) int64
		lo, hi  int64 // the split key must fall in [lo, hi]
		noSplit bool
	}{
		{name: "uniform over [0, 1000): near the middle", gen: func(r *rand.Rand) int64 { return r.Int64N(1000) }, lo: 350, hi: 650},
		{name: "90% of the load on [0, 100): inside it", gen: func(r *rand.Rand) int64 {
			if r.IntN(10) < 9 {
				return r.Int64N(100)
			}
			return 100 + r.Int64N(900)
		}, lo: 20, hi: 90},
		{name: "one hot key: cannot split", gen: func(*rand.Rand) int64 { return 7 }, noSplit: true},
		{name: "two hot keys: between them", gen: func(r *rand.Rand) int64 { return 10 * int64(1+r.IntN(2)) }, lo: 20, hi: 20},
		{name: "ascending keys: no split", gen: func() func(*rand.Rand) int64 {
			n := int64(0)
			return func(*rand.Rand) int64 { n++; return n }
		}(), noSplit: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := uint64(0); seed < 20; seed++ {
				s := NewLoadSplitter(LoadSplitConfig{}, seed)
				rng := rand.New(rand.NewPCG(seed, 1))
				for i := 0; i < 5000; i++ {
					s.Record(k(tc.gen(rng)))
				}
				got, ok := s.SplitKey()
				if tc.noSplit {
					if ok {
						t.Fatalf("seed %d: split at %v, want none", seed, got)
					}
					continue
				}
				if !ok {
					t.Fatalf("seed %d: no split key", seed)
				}
				if v := got[0].Value.(int64); v < tc.lo || v > tc.hi {
					t.Fatalf("seed %d: split at %d, want within [%d, %d]", seed, v, tc.lo, tc.hi)
				}
			}
		})
	}
}

func TestLoadSplitterNeedsMinOps(t *testing.T) {
	s := NewLoadSplitter(LoadSplitConfig{MinOps: 100}, 1)
	keys := rand.New(rand.NewPCG(3, 3)).Perm(100)
	for _, v := range keys[:99] {
		s.Record(k(int64(v)))
	}
	if _, ok := s.SplitKey(); ok {
		t.Fatal("a key proposed before MinOps operations")
	}
	s.Record(k(int64(keys[99])))
	if _, ok := s.SplitKey(); !ok {
		t.Fatal("no key after MinOps operations over 100 keys")
	}
	s.Reset()
	if _, ok := s.SplitKey(); ok {
		t.Fatal("a key proposed after Reset")
	}
}

func TestHot(t *testing.T) {
	for _, tc := range []struct {
		chunk, total int64
		shards       int
		want         bool
	}{
		{chunk: 600, total: 1000, shards: 4, want: true},  // 60% > 2/4
		{chunk: 400, total: 1000, shards: 4, want: false}, // 40% < 50%
		{chunk: 900, total: 1000, shards: 1, want: false}, // nowhere to spread
		{chunk: 50, total: 60, shards: 4, want: false},    // below minOps
	} {
		if got := Hot(tc.chunk, tc.total, tc.shards, 100); got != tc.want {
			t.Errorf("Hot(%d, %d, %d) = %v, want %v", tc.chunk, tc.total, tc.shards, got, tc.want)
		}
	}
}
