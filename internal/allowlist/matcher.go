package allowlist

import (
	"net"
	"sort"
	"sync"
	"sync/atomic"
)

// maxRefusedAddrs bounds the per-address refusal counts a Matcher keeps;
// refusals from further addresses count only in the total.
const maxRefusedAddrs = 1000

// Matcher holds the current policy for the accept path (one atomic load
// per connection) and counts refusals.
type Matcher struct {
	p       atomic.Pointer[Policy]
	refused atomic.Int64 // connections refused at accept
	closed  atomic.Int64 // open connections closed after a change

	mu struct {
		sync.Mutex
		byAddr map[string]int64 // refusals per address, bounded
		subs   []chan struct{}
	}
}

// NewMatcher returns a matcher holding p (nil: allow everyone).
func NewMatcher(p *Policy) *Matcher {
	m := &Matcher{}
	if p == nil {
		p = &Policy{Source: SourceNone, AlwaysAllowMembers: true}
	}
	m.p.Store(p)
	m.mu.byAddr = map[string]int64{}
	return m
}

// Policy returns the current policy (never nil; do not modify it).
func (m *Matcher) Policy() *Policy { return m.p.Load() }

// Store publishes p and wakes every subscriber.
func (m *Matcher) Store(p *Policy) {
	m.p.Store(p)
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.mu.subs {
		select {
		case c <- struct{}{}:
		default: // a wake-up is already pending
		}
	}
}

// Subscribe returns a channel that receives (coalesced) after each Store.
func (m *Matcher) Subscribe() <-chan struct{} {
	c := make(chan struct{}, 1)
	m.mu.Lock()
	m.mu.subs = append(m.mu.subs, c)
	m.mu.Unlock()
	return c
}

// Admit reports whether a new connection from addr may stay; a refusal is
// counted (total and per address).
func (m *Matcher) Admit(addr net.Addr) bool {
	if m.Policy().AllowsNet(addr) {
		return true
	}
	m.refused.Add(1)
	key := "unknown"
	if a, ok := AddrOf(addr); ok {
		key = a.String()
	}
	m.mu.Lock()
	if _, ok := m.mu.byAddr[key]; ok || len(m.mu.byAddr) < maxRefusedAddrs {
		m.mu.byAddr[key]++
	}
	m.mu.Unlock()
	return false
}

// CountClosed records n open connections closed because a new policy
// excludes them.
func (m *Matcher) CountClosed(n int) { m.closed.Add(int64(n)) }

// Stats are a matcher's counters.
type Stats struct {
	Refused int64 // connections refused at accept
	Closed  int64 // open connections closed by a list change
	ByAddr  []AddrCount
}

// AddrCount is the refusals from one address.
type AddrCount struct {
	Addr  string
	Count int64
}

// Stats returns the counters, ByAddr sorted by count (highest first) and
// cut to at most limit addresses.
func (m *Matcher) Stats(limit int) Stats {
	s := Stats{Refused: m.refused.Load(), Closed: m.closed.Load()}
	m.mu.Lock()
	for a, n := range m.mu.byAddr {
		s.ByAddr = append(s.ByAddr, AddrCount{a, n})
	}
	m.mu.Unlock()
	sort.Slice(s.ByAddr, func(i, j int) bool {
		if s.ByAddr[i].Count != s.ByAddr[j].Count {
			return s.ByAddr[i].Count > s.ByAddr[j].Count
		}
		return s.ByAddr[i].Addr < s.ByAddr[j].Addr
	})
	if len(s.ByAddr) > limit {
		s.ByAddr = s.ByAddr[:limit]
	}
	return s
}
