package netclient

import (
	"context"
	"fmt"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// monitor checks m until the set is closed or idle: hello, then awaitable
// hellos that the member answers when its topology changes (or after
// MaxAwait). A member without topologyVersion is polled every MaxAwait; a
// failed check is retried at once on a new connection (the failure may be
// the connection's), then every minHeartbeat.
//
// An RTT probe (rtt.go) runs beside it while it runs.
//
// TODO(#15): the exhaust form of streaming hello (exhaustAllowed,
// moreToCome replies) once the server streams replies.
func (s *ReplicaSet) monitor(m *member) {
	var c *Conn
	probe, stopProbe := context.WithCancel(s.ctx)
	defer func() {
		stopProbe()
		if c != nil {
			_ = c.Close()
		}
	}()
	go s.rttProbe(probe, m)
	var tv bson.D
	failures := 0
	for s.keepMonitoring(m) {
		if c == nil {
			var err error
			if c, err = s.dialMonitor(m); err != nil {
				s.observe(m, Hello{}, err)
				failures++
				s.pause(m, failures, minHeartbeat)
				continue
			}
		}
		h, err := s.check(m, c, tv)
		if err != nil {
			_ = c.Close()
			c, tv = nil, nil
			s.observe(m, Hello{}, err)
			failures++
			s.pause(m, failures, minHeartbeat)
			continue
		}
		failures = 0
		s.observe(m, h, nil)
		if tv = h.TopologyVersion; tv == nil {
			s.pause(m, 1, s.opts.MaxAwait)
		}
	}
}

// keepMonitoring reports whether m's monitor goes on; when not, it is
// marked stopped (under mu, so a new use starts another).
func (s *ReplicaSet) keepMonitoring(m *member) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed() || time.Since(s.mu.lastUse) >= s.opts.IdleStop || s.mu.members[m.host] != m {
		m.running = false
		return false
	}
	return true
}

func (s *ReplicaSet) dialMonitor(m *member) (*Conn, error) {
	ctx, cancel := s.checkCtx(m, func(bool) time.Duration { return s.pool.opts.DialTimeout })
	defer cancel()
	return s.pool.Dial(ctx, m.host)
}

// check runs one hello on c: awaitable when tv is known and MarkFailed
// did not ask for a check now (an awaitable hello to a member whose
// topology did not change would wait MaxAwait).
func (s *ReplicaSet) check(m *member, c *Conn, tv bson.D) (Hello, error) {
	awaitable := false
	ctx, cancel := s.checkCtx(m, func(recheck bool) time.Duration {
		if awaitable = tv != nil && !recheck; awaitable {
			return helloTimeout + s.opts.MaxAwait
		}
		return helloTimeout
	})
	defer cancel()
	cmd := bson.D{{Key: "hello", Value: int32(1)}}
	if awaitable {
		cmd = append(cmd, bson.E{Key: "topologyVersion", Value: tv},
			bson.E{Key: "maxAwaitTimeMS", Value: s.opts.MaxAwait.Milliseconds()})
	}
	start := time.Now()
	reply, err := c.Run(ctx, "admin", cmd)
	if err != nil {
		return Hello{}, fmt.Errorf("hello: %w", err)
	}
	if !awaitable {
		s.recordRTT(m, time.Since(start))
	}
	return ParseHello(reply), nil
}

// checkCtx bounds one check by timeout(recheck), the set's life and the
// pool's, and lets MarkFailed cancel it. recheck reports (and clears) a
// MarkFailed since the last check; it and the registration of the cancel
// func are one critical section, so a MarkFailed either cancels the check
// or makes it a prompt one.
func (s *ReplicaSet) checkCtx(m *member, timeout func(recheck bool) time.Duration) (context.Context, context.CancelFunc) {
	s.mu.Lock()
	recheck := m.recheck
	m.recheck = false
	ctx, cancel := context.WithTimeout(s.ctx, timeout(recheck))
	m.cancel = cancel
	s.mu.Unlock()
	go func() {
		select {
		case <-s.pool.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		s.mu.Lock()
		m.cancel = nil
		s.mu.Unlock()
		cancel()
	}
}

// pause waits before the next check: d after the first failure or poll,
// minHeartbeat after more; a MarkFailed or Close ends it early.
func (s *ReplicaSet) pause(m *member, failures int, d time.Duration) {
	if failures == 1 && d == minHeartbeat {
		return // retry a failed check once at once
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-m.wake:
	case <-s.ctx.Done():
	case <-s.pool.done:
	}
}

// observe records the outcome of a check of m and learns the members it
// lists.
func (s *ReplicaSet) observe(m *member, h Hello, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case err != nil:
		m.state, m.err, m.rtt = unknown, err, 0 // SDAM resets an Unknown server's RTT
	case s.mu.name != "" && h.SetName != s.mu.name:
		m.state, m.err = other, fmt.Errorf("%s is not a member of %s (setName %q)", m.host, s.mu.name, h.SetName)
	default:
		if s.mu.name == "" {
			s.mu.name = h.SetName
		}
		m.err, m.electionID = nil, h.ElectionID
		m.tags, m.lastWrite, m.lastUpdate = h.Tags, h.LastWriteDate, time.Now()
		switch {
		case h.WritablePrimary:
			m.state = primary
		case h.Secondary && !h.Hidden: // a hidden member is RSOther
			m.state = secondary
		default:
			m.state = other
		}
		for _, host := range h.Hosts {
			s.addLocked(host)
		}
		if h.WritablePrimary {
			s.keepOnlyLocked(m.host, h.Hosts)
		}
	}
	s.setPrimaryLocked()
}

// keepOnlyLocked drops the members a primary's hello does not list (they
// were removed from the set's config; their monitors stop), as SDAM
// does; REQUIRES: mu.
func (s *ReplicaSet) keepOnlyLocked(self string, hosts []string) {
	if len(hosts) == 0 {
		return
	}
	kept := s.mu.order[:0]
	for _, h := range s.mu.order {
		if h == self || slices.Contains(hosts, h) {
			kept = append(kept, h)
			continue
		}
		if m := s.mu.members[h]; m.cancel != nil {
			m.cancel()
		}
		delete(s.mu.members, h)
	}
	s.mu.order = kept
}
