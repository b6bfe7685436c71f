// Package generator holds YCSB's number generators, reimplemented from the
// algorithms of YCSB's core (site.ycsb.generator) so that relaydb bench
// chooses keys, operations and lengths with the same distributions as YCSB.
//
// Invariants:
//   - Every generator is safe for concurrent use. Randomness comes from the
//     caller: each Next takes a *rand.Rand owned by one worker goroutine, so
//     a fixed seed gives a reproducible sequence and workers never contend on
//     a shared source (YCSB uses ThreadLocalRandom for the same reason).
//   - Shared state (counters, the Zipfian zeta for a growing item count) is
//     updated with atomics or a mutex that the common path does not take.
//   - Quirks of YCSB that change the distribution are kept and commented
//     (for example Zipfian's eta keeps the item count it was built with).
package generator

import "math/rand/v2"

// Number is a generator of int64 values.
type Number interface {
	Next(r *rand.Rand) int64
}

// FNVOffsetBasis64 and FNVPrime64 are the 64-bit FNV constants YCSB uses.
const (
	FNVOffsetBasis64 = uint64(0xCBF29CE484222325)
	FNVPrime64       = uint64(1099511628211)
)

// FNVHash64 is YCSB's Utils.fnvhash64: FNV-1a over the eight low-to-high
// bytes of val (arithmetic shift, as Java's >>), then the absolute value.
// Like Java's Math.abs, the absolute value of MinInt64 stays negative.
func FNVHash64(val int64) int64 {
	h := FNVOffsetBasis64
	for i := 0; i < 8; i++ {
		octet := uint64(val & 0xff)
		val >>= 8
		h ^= octet
		h *= FNVPrime64
	}
	s := int64(h)
	if s < 0 {
		s = -s
	}
	return s
}
