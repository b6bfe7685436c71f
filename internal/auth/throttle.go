package auth

import (
	"sync"
	"time"
)

// Throttle slows down repeated failed logins from one address: the first
// Free failures within Window cost nothing, each later one waits twice as
// long as the one before (Base, 2*Base, ...) up to Max. An address's count
// resets after Window without a failure. Memory is bounded: at most
// maxTracked addresses; when full, entries idle for Window are dropped and,
// if none is, the table is cleared (failing open on delay, never growing).
type Throttle struct {
	Free   int
	Base   time.Duration
	Max    time.Duration
	Window time.Duration
	now    func() time.Time

	mu   sync.Mutex
	addr map[string]*failures
}

type failures struct {
	n    int
	last time.Time
}

const maxTracked = 10000

// NewThrottle returns relaydb's defaults (MongoDB has no such throttle):
// 5 free failures, then 250ms doubling up to 5s, counted per minute.
func NewThrottle() *Throttle {
	return &Throttle{Free: 5, Base: 250 * time.Millisecond, Max: 5 * time.Second, Window: time.Minute, now: time.Now, addr: map[string]*failures{}}
}

// Fail records a failed login from addr and returns how long to wait
// before answering it.
func (t *Throttle) Fail(addr string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	f := t.addr[addr]
	if f == nil || now.Sub(f.last) > t.Window {
		if f == nil && len(t.addr) >= maxTracked {
			t.evict(now)
		}
		f = &failures{}
		t.addr[addr] = f
	}
	f.n++
	f.last = now
	if f.n <= t.Free {
		return 0
	}
	d := t.Base
	for i := t.Free + 1; i < f.n && d < t.Max; i++ {
		d *= 2
	}
	return min(d, t.Max)
}

// Succeed forgets addr's failures.
func (t *Throttle) Succeed(addr string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.addr, addr)
}

func (t *Throttle) evict(now time.Time) {
	for a, f := range t.addr {
		if now.Sub(f.last) > t.Window {
			delete(t.addr, a)
		}
	}
	if len(t.addr) >= maxTracked {
		clear(t.addr)
	}
}
