package netclient

import (
	"context"
	"fmt"
	"time"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Select returns the member a read with preference p goes to (selection.go
// decides from what the monitors last saw). Mode primary waits for a
// primary as Primary does. For the other modes it first waits (up to
// helloTimeout) until every member was checked once, so that a set just
// (re)started is not read from a secondary before its primary is known;
// then, when no member suits p: if every member answered its last check,
// nothing will change soon and it fails at once with
// FailedToSatisfyReadPreference; while some member is unreachable it
// waits for the monitors to learn more, up to SelectTimeout or ctx
// (mongos waits so for a matching host).
func (s *ReplicaSet) Select(ctx context.Context, p ReadPref) (string, error) {
	if p.Mode == "" || p.Mode == ModePrimary {
		return s.Primary(ctx)
	}
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	firstChecks := time.Now().Add(helloTimeout)
	for {
		if s.closed() {
			return "", fmt.Errorf("netclient: replica set %s: closed", s.Name())
		}
		s.mu.Lock()
		s.useLocked()
		cands, settled, checked := s.candidatesLocked()
		ch := s.mu.changed
		s.mu.Unlock()
		if !checked && time.Now().Before(firstChecks) {
			if !s.waitChange(ctx, ch, firstChecks) {
				return "", s.unsatisfied(p)
			}
			continue
		}
		if h := Pick(cands, p, s.opts.MaxAwait); h != "" {
			return h, nil
		}
		if settled {
			return "", s.unsatisfied(p)
		}
		if timer == nil {
			timer = time.NewTimer(s.opts.SelectTimeout)
		}
		select {
		case <-ch:
		case <-timer.C:
			return "", s.unsatisfied(p)
		case <-ctx.Done():
			return "", s.unsatisfied(p)
		case <-s.ctx.Done():
		case <-s.pool.done:
		}
	}
}

// unsatisfied is mongos's error when no member matches p.
func (s *ReplicaSet) unsatisfied(p ReadPref) error {
	return mongoerr.New(mongoerr.FailedToSatisfyReadPreference,
		"Could not find host matching read preference %s for set %s", p, s.Name())
}

// waitChange waits for a change of the set (ch) until deadline; false
// when ctx ended first.
func (s *ReplicaSet) waitChange(ctx context.Context, ch chan struct{}, deadline time.Time) bool {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	case <-ctx.Done():
		return false
	case <-s.ctx.Done():
	case <-s.pool.done:
	}
	return true
}

// candidatesLocked returns the primary (the one the set takes for it) and
// the secondaries as selection sees them; settled reports that every
// member answered its last check, checked that every member was checked
// at least once. REQUIRES: mu.
func (s *ReplicaSet) candidatesLocked() (out []Candidate, settled, checked bool) {
	settled, checked = true, true
	for _, h := range s.mu.order {
		m := s.mu.members[h]
		switch {
		case m.state == unchecked || m.state == unknown:
			settled = false
			checked = checked && m.state != unchecked
			continue
		case h == s.mu.primary:
		case m.state != secondary:
			continue
		}
		out = append(out, Candidate{Host: h, Primary: h == s.mu.primary, Tags: m.tags,
			LastWrite: m.lastWrite, LastUpdate: m.lastUpdate, RTT: m.rtt})
	}
	return out, settled, checked
}
