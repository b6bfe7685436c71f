package balancer

import (
	"math/rand/v2"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/shard/key"
)

// Load-based splitting (relaydb's own, as CockroachDB and TiKV split hot
// ranges): a chunk that takes a large share of a collection's operations
// is split at a key that halves its load, so the balancer can spread the
// halves. LoadSplitter is CockroachDB's split finder: it keeps a
// reservoir of sampled operation keys and, for each, how many later
// operations fell left and right of it; the split key is the sample that
// divides them most evenly. It is pure (its randomness is seeded).
// Shards keep one per collection over a window (command.LoadSampler,
// reported by _shardsvrGetStatsForBalancing); the balancer acts on the
// result (PlanLoad, hot.go).

// LoadSplitConfig tunes a LoadSplitter; zero fields take the defaults.
type LoadSplitConfig struct {
	Samples int     // reservoir size (default 20)
	MinOps  int     // operations seen before a key is proposed (default 1000)
	MaxSkew float64 // the best sample's |below - from it on| / all must not exceed it (default 0.5)
}

func (c LoadSplitConfig) withDefaults() LoadSplitConfig {
	if c.Samples <= 0 {
		c.Samples = 20
	}
	if c.MinOps <= 0 {
		c.MinOps = 1000
	}
	if c.MaxSkew <= 0 {
		c.MaxSkew = 0.5
	}
	return c
}

// LoadSplitter finds a split key for one chunk from its operations' keys.
type LoadSplitter struct {
	cfg     LoadSplitConfig
	rng     *rand.Rand
	seen    int
	samples []loadSample
}

type loadSample struct {
	key                bson.D
	left, right, equal int
}

// NewLoadSplitter returns a splitter whose sampling is seeded by seed.
func NewLoadSplitter(cfg LoadSplitConfig, seed uint64) *LoadSplitter {
	return &LoadSplitter{cfg: cfg.withDefaults(), rng: rand.New(rand.NewPCG(seed, 0x5eed))}
}

// Record counts one operation on shard key k (a point operation; a range
// operation is recorded by its lower bound).
func (s *LoadSplitter) Record(k bson.D) {
	s.seen++
	for i := range s.samples {
		switch c := key.Compare(k, s.samples[i].key); {
		case c < 0:
			s.samples[i].left++
		case c > 0:
			s.samples[i].right++
		default:
			s.samples[i].equal++
		}
	}
	if len(s.samples) < s.cfg.Samples {
		s.samples = append(s.samples, loadSample{key: k})
	} else if j := s.rng.IntN(s.seen); j < s.cfg.Samples {
		s.samples[j] = loadSample{key: k}
	}
}

// SplitKey proposes the key that best halves the recorded load: the
// operations below it (left) and from it on (equal and right) as even as
// MaxSkew allows. false before MinOps operations, or when no sample
// splits them (one hot key takes them all: a key cannot be split). Only
// the operations after a key was sampled count for it, so keys arriving
// in ascending order (an insert-heavy monotonic key) are never split:
// that load is not spread by a split either.
func (s *LoadSplitter) SplitKey() (bson.D, bool) {
	if s.seen < s.cfg.MinOps {
		return nil, false
	}
	best, bestSkew := -1, 2.0
	for i, smp := range s.samples {
		n := smp.left + smp.right + smp.equal
		if n == 0 || smp.left == 0 { // nothing below it: splitting there moves no load
			continue
		}
		skew := abs(float64(smp.left-smp.right-smp.equal)) / float64(n)
		if skew < bestSkew {
			best, bestSkew = i, skew
		}
	}
	if best < 0 || bestSkew > s.cfg.MaxSkew {
		return nil, false
	}
	return s.samples[best].key, true
}

// Reset forgets the recorded operations (after a split, or a window).
func (s *LoadSplitter) Reset() { s.seen, s.samples = 0, s.samples[:0] }

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// Hot reports whether a chunk with chunkOps of a collection's totalOps in
// a window deserves a load split: at least minOps, and more than twice
// its fair share when the collection is spread over shards shards.
func Hot(chunkOps, totalOps int64, shards int, minOps int64) bool {
	if chunkOps < minOps || totalOps <= 0 || shards <= 1 {
		return false
	}
	return float64(chunkOps)/float64(totalOps) > 2/float64(shards)
}
