package netclient

import (
	"context"
	"fmt"
	"time"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Select returns the member a read with preference p goes to (selection.go
// decides from what the monitors last saw). Mode primary waits for a
// primary as Primary does. For the other modes, when no member suits p
// yet: if every member answered its last check, nothing will change
// soon and it fails at once with FailedToSatisfyReadPreference; while some
// member is unchecked or unreachable it waits for the monitors to learn
// more, up to SelectTimeout or ctx (mongos waits so for a matching host).
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
	for {
		if s.closed() {
			return "", fmt.Errorf("netclient: replica set %s: closed", s.Name())
		}
		s.mu.Lock()
		s.useLocked()
		cands, settled := s.candidatesLocked()
		ch := s.mu.changed
		s.mu.Unlock()
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

// candidatesLocked returns the primary (the one the set takes for it) and
// the secondaries as selection sees them; settled reports that every
// member answered its last check. REQUIRES: mu.
func (s *ReplicaSet) candidatesLocked() (out []Candidate, settled bool) {
	settled = true
	for _, h := range s.mu.order {
		m := s.mu.members[h]
		switch {
		case m.state == unchecked || m.state == unknown:
			settled = false
			continue
		case h == s.mu.primary:
		case m.state != secondary:
			continue
		}
		out = append(out, Candidate{Host: h, Primary: h == s.mu.primary, Tags: m.tags,
			LastWrite: m.lastWrite, LastUpdate: m.lastUpdate, RTT: m.rtt})
	}
	return out, settled
}
