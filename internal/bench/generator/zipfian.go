package generator

import (
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// ZipfianConstant is YCSB's default skew (theta).
const ZipfianConstant = 0.99

// Zipfian draws from [base, base+items) with item base the most popular,
// base+1 the next, and so on: YCSB's ZipfianGenerator, which implements
// Gray et al., "Quickly Generating Billion-Record Synthetic Databases"
// (SIGMOD 1994).
//
// The item count may grow between calls (NextN with a larger count): zeta
// is then extended incrementally, as YCSB does. A smaller count than the
// one zeta was computed for is used as is, without recomputing (YCSB's
// default allowitemcountdecrease=false).
type Zipfian struct {
	base, items              int64
	theta, alpha, zeta2theta float64

	mu    sync.Mutex               // serialises zeta extensions
	state atomic.Pointer[zipfZeta] // replaced whole, never mutated
}

// zipfZeta is the part that depends on the item count.
type zipfZeta struct {
	count int64 // the item count zetan was computed for
	zetan float64
	eta   float64
}

// NewZipfian draws from [min, max] with skew theta, computing zeta (O(n)).
func NewZipfian(min, max int64, theta float64) *Zipfian {
	return NewZipfianZeta(min, max, theta, Zeta(0, max-min+1, theta, 0))
}

// NewZipfianZeta is NewZipfian with a precomputed zeta for max-min+1 items.
func NewZipfianZeta(min, max int64, theta, zetan float64) *Zipfian {
	z := &Zipfian{base: min, items: max - min + 1, theta: theta}
	z.alpha = 1 / (1 - theta)
	z.zeta2theta = Zeta(0, 2, theta, 0)
	z.state.Store(&zipfZeta{count: z.items, zetan: zetan, eta: z.eta(zetan)})
	return z
}

// Zeta sums 1/i^theta for i in (st, n], starting from initial: the zeta
// of n items given the zeta of st items.
func Zeta(st, n int64, theta, initial float64) float64 {
	sum := initial
	for i := st; i < n; i++ {
		sum += 1 / math.Pow(float64(i+1), theta)
	}
	return sum
}

// eta uses the item count the generator was built with, even after zeta
// was extended to a larger count: YCSB does the same, and keeping it keeps
// our distribution equal to YCSB's (it matters for the "latest" workload).
func (z *Zipfian) eta(zetan float64) float64 {
	return (1 - math.Pow(2/float64(z.items), 1-z.theta)) / (1 - z.zeta2theta/zetan)
}

// Next draws from the generator's own item count.
func (z *Zipfian) Next(r *rand.Rand) int64 { return z.NextN(r, z.items) }

// NextN draws from [base, base+itemcount).
func (z *Zipfian) NextN(r *rand.Rand, itemcount int64) int64 {
	st := z.state.Load()
	if itemcount > st.count {
		st = z.grow(itemcount)
	}
	u := r.Float64()
	uz := u * st.zetan
	if uz < 1 {
		return z.base
	}
	if uz < 1+math.Pow(0.5, z.theta) {
		return z.base + 1
	}
	return z.base + int64(float64(itemcount)*math.Pow(st.eta*u-st.eta+1, z.alpha))
}

// grow extends zeta to itemcount items unless another caller already did.
func (z *Zipfian) grow(itemcount int64) *zipfZeta {
	z.mu.Lock()
	defer z.mu.Unlock()
	st := z.state.Load()
	if itemcount <= st.count {
		return st
	}
	zetan := Zeta(st.count, itemcount, z.theta, st.zetan)
	st = &zipfZeta{count: itemcount, zetan: zetan, eta: z.eta(zetan)}
	z.state.Store(st)
	return st
}

// Scrambled zipfian constants: YCSB draws from a zipfian over 10^16 items,
// whose zeta for theta 0.99 it precomputed, then hashes the draw into the
// real key space, so popular keys are spread out instead of clustered.
const (
	scrambledItemCount = int64(10_000_000_000_000_000)
	scrambledZetan     = 26.46902820178302
)

// ScrambledZipfian is YCSB's ScrambledZipfianGenerator: zipfian popularity
// with the popular items scattered over [min, max].
type ScrambledZipfian struct {
	min, count int64
	gen        *Zipfian
}

// NewScrambledZipfian draws from [min, max] with YCSB's theta 0.99. (YCSB
// supports only that constant here: zeta over 10^16 items is precomputed.)
func NewScrambledZipfian(min, max int64) *ScrambledZipfian {
	// YCSB builds ZipfianGenerator(0, ITEM_COUNT): ITEM_COUNT+1 items.
	gen := NewZipfianZeta(0, scrambledItemCount, ZipfianConstant, scrambledZetan)
	return &ScrambledZipfian{min: min, count: max - min + 1, gen: gen}
}

// Next returns the next value.
func (s *ScrambledZipfian) Next(r *rand.Rand) int64 {
	return s.min + FNVHash64(s.gen.Next(r))%s.count
}
