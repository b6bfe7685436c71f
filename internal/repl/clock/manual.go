package clock

import (
	"sort"
	"sync"
	"time"
)

// Manual is a Clock whose time moves only when told (Advance, Set). It is
// safe for concurrent use.
type Manual struct {
	mu     sync.Mutex
	now    time.Time
	seq    uint64
	timers []*manualTimer // pending, unordered
}

// NewManual returns a Manual clock reading start.
func NewManual(start time.Time) *Manual { return &Manual{now: start} }

// manualTimer is a Manual clock's timer or ticker (period > 0).
type manualTimer struct {
	m      *Manual
	c      chan time.Time
	when   time.Time
	period time.Duration
	seq    uint64 // creation order, for ties
}

// Now returns the clock's time.
func (m *Manual) Now() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now
}

// After returns a channel that receives the time once d has passed.
func (m *Manual) After(d time.Duration) <-chan time.Time { return m.NewTimer(d).C() }

// NewTimer returns a timer firing once d has passed.
func (m *Manual) NewTimer(d time.Duration) Timer { return m.add(d, 0) }

// NewTicker returns a ticker firing every d; d must be positive.
func (m *Manual) NewTicker(d time.Duration) Ticker {
	if d <= 0 {
		panic("clock: non-positive interval for NewTicker")
	}
	return manualTicker{m.add(d, d)}
}

// manualTicker is a ticker: Stop reports nothing.
type manualTicker struct{ t *manualTimer }

func (t manualTicker) C() <-chan time.Time { return t.t.c }
func (t manualTicker) Stop()               { t.t.Stop() }

func (m *Manual) add(d, period time.Duration) *manualTimer {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seq++
	t := &manualTimer{m: m, c: make(chan time.Time, 1), when: m.now.Add(d), period: period, seq: m.seq}
	if d <= 0 {
		t.fire(m.now)
		if period == 0 {
			return t
		}
		t.when = m.now.Add(period)
	}
	m.timers = append(m.timers, t)
	return t
}

// Pending is how many timers and tickers wait to fire.
func (m *Manual) Pending() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.timers)
}

// Next is the earliest time a pending timer or ticker fires; false if none.
func (m *Manual) Next() (time.Time, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.timers) == 0 {
		return time.Time{}, false
	}
	m.sortLocked()
	return m.timers[0].when, true
}

// Advance moves the clock forward by d, firing what falls due on the way.
func (m *Manual) Advance(d time.Duration) {
	m.mu.Lock()
	to := m.now.Add(d)
	m.mu.Unlock()
	m.Set(to)
}

// Set moves the clock to t (never backwards), firing every timer and
// tick due at or before t in deadline order.
func (m *Manual) Set(t time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for {
		m.sortLocked()
		if len(m.timers) == 0 || m.timers[0].when.After(t) {
			break
		}
		next := m.timers[0]
		if next.when.After(m.now) {
			m.now = next.when
		}
		next.fire(next.when)
		if next.period > 0 {
			next.when = next.when.Add(next.period)
		} else {
			m.timers = m.timers[1:]
		}
	}
	if t.After(m.now) {
		m.now = t
	}
}

func (m *Manual) sortLocked() {
	sort.Slice(m.timers, func(i, j int) bool {
		a, b := m.timers[i], m.timers[j]
		if !a.when.Equal(b.when) {
			return a.when.Before(b.when)
		}
		return a.seq < b.seq
	})
}

// removeLocked drops t from the pending timers; false if it was not there.
func (m *Manual) removeLocked(t *manualTimer) bool {
	for i, x := range m.timers {
		if x == t {
			m.timers = append(m.timers[:i], m.timers[i+1:]...)
			return true
		}
	}
	return false
}

// fire sends at on the channel unless a tick is already waiting there.
func (t *manualTimer) fire(at time.Time) {
	select {
	case t.c <- at:
	default:
	}
}

func (t *manualTimer) C() <-chan time.Time { return t.c }

// Stop stops a timer (reporting whether it was pending) or a ticker.
func (t *manualTimer) Stop() bool {
	t.m.mu.Lock()
	defer t.m.mu.Unlock()
	return t.m.removeLocked(t)
}
