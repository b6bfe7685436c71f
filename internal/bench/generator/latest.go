package generator

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// ackWindow bounds how many keys may be handed out but not acknowledged
// (YCSB's AcknowledgedCounterGenerator uses the same 2^20).
const ackWindow = 1 << 20

// AckCounter is a counter whose Last is the highest value below which
// every handed out value was acknowledged (YCSB's
// AcknowledgedCounterGenerator). Transaction inserts use it so that reads
// only choose keys whose insert completed.
type AckCounter struct {
	next  atomic.Int64
	limit atomic.Int64 // highest contiguously acknowledged value

	mu     sync.Mutex
	window []bool // REQUIRES: mu; slot v%ackWindow set when v is acked
}

// NewAckCounter returns a counter whose first value is start; Last is
// start-1 until start is acknowledged.
func NewAckCounter(start int64) *AckCounter {
	c := &AckCounter{window: make([]bool, ackWindow)}
	c.next.Store(start)
	c.limit.Store(start - 1)
	return c
}

// Next hands out the next value.
func (c *AckCounter) Next(*rand.Rand) int64 { return c.next.Add(1) - 1 }

// Last returns the highest value v such that all values <= v were acked.
func (c *AckCounter) Last() int64 { return c.limit.Load() }

// Acknowledge marks v as done and advances Last over the contiguous run.
// It reports false when more than 2^20 values are pending (YCSB throws).
func (c *AckCounter) Acknowledge(v int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	slot := v & (ackWindow - 1)
	if c.window[slot] {
		return false
	}
	c.window[slot] = true
	limit := c.limit.Load()
	for i := limit + 1; i != limit+1+ackWindow; i++ {
		s := i & (ackWindow - 1)
		if !c.window[s] {
			break
		}
		c.window[s] = false
		c.limit.Store(i)
	}
	return true
}

// SkewedLatest favours the most recently inserted items: a zipfian
// distance back from the basis counter's Last (YCSB's
// SkewedLatestGenerator, used by requestdistribution=latest).
type SkewedLatest struct {
	basis *AckCounter
	zipf  *Zipfian
}

// NewSkewedLatest builds the generator over basis; as in YCSB the zipfian
// is sized with basis.Last() items and grows as inserts are acknowledged.
func NewSkewedLatest(basis *AckCounter) *SkewedLatest {
	n := basis.Last()
	if n < 1 {
		n = 1
	}
	return &SkewedLatest{basis: basis, zipf: NewZipfian(0, n-1, ZipfianConstant)}
}

// Next returns Last minus a zipfian distance.
func (s *SkewedLatest) Next(r *rand.Rand) int64 {
	max := s.basis.Last()
	return max - s.zipf.NextN(r, max)
}
