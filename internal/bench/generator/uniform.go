package generator

import (
	"math/rand/v2"
	"sync/atomic"
)

// Uniform draws uniformly from [lb, ub] (YCSB's UniformLongGenerator).
type Uniform struct{ lb, interval int64 }

// NewUniform returns a generator of values in [lb, ub]; ub < lb yields lb.
func NewUniform(lb, ub int64) *Uniform {
	n := ub - lb + 1
	if n < 1 {
		n = 1
	}
	return &Uniform{lb: lb, interval: n}
}

// Next returns the next value.
func (u *Uniform) Next(r *rand.Rand) int64 { return u.lb + r.Int64N(u.interval) }

// Constant always returns the same value (YCSB's ConstantIntegerGenerator).
type Constant int64

// Next returns the constant.
func (c Constant) Next(*rand.Rand) int64 { return int64(c) }

// Counter hands out start, start+1, ... (YCSB's CounterGenerator).
type Counter struct{ next atomic.Int64 }

// NewCounter returns a counter whose first value is start.
func NewCounter(start int64) *Counter {
	c := &Counter{}
	c.next.Store(start)
	return c
}

// Next returns the next value; the random source is unused.
func (c *Counter) Next(*rand.Rand) int64 { return c.next.Add(1) - 1 }

// Last returns the most recently handed out value.
func (c *Counter) Last() int64 { return c.next.Load() - 1 }
