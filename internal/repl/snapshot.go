package repl

import (
	"time"

	"github.com/relaydb/relaydb/internal/repl/topology"
)

// snapshot is what the command path reads without locking: published
// (copy on write) after every event.
type snapshot struct {
	hasConfig    bool
	cfg          topology.Config
	state        topology.MemberState
	term         int64
	writable     bool // accepts writes (no-op of the term written)
	selfID       int
	primaryID    int
	primaryHost  string
	applied      topology.OpTime
	durable      topology.OpTime
	commitPoint  topology.OpTime
	syncHost     string
	syncID       int
	tvCounter    int64
	electionTerm int64
	electedAt    time.Time
	frozenUntil  time.Time
}

// key is the comparable part of a snapshot: a change wakes waiters.
type snapKey struct {
	hasConfig                 bool
	cfgVersion, cfgTerm       int64
	state                     topology.MemberState
	term                      int64
	writable                  bool
	primaryID, syncID         int
	applied, durable, commitP topology.OpTime
	tv                        int64
}

func (s *snapshot) key() snapKey {
	return snapKey{s.hasConfig, s.cfg.Version, s.cfg.Term, s.state, s.term, s.writable,
		s.primaryID, s.syncID, s.applied, s.durable, s.commitPoint, s.tvCounter}
}

// load returns the current snapshot.
func (c *Coordinator) load() *snapshot { return c.snap.Load() }

// publishLocked publishes a new snapshot and wakes waiters when it
// differs from the last one. REQUIRES: c.mu.
func (c *Coordinator) publishLocked() {
	s := &snapshot{state: topology.StateStartup, selfID: -1, primaryID: -1, syncID: -1,
		tvCounter: c.mu.tvCounter, durable: c.mu.durable, syncHost: c.mu.syncHost,
		electionTerm: c.mu.electionTerm, electedAt: c.mu.electedAt}
	if t := c.mu.topo; t != nil {
		s.hasConfig, s.cfg, s.state, s.term = true, t.Config(), t.State(), t.Term()
		s.writable = c.mu.acceptW && t.Writable()
		s.selfID, s.primaryID, s.syncID = t.SelfID(), t.PrimaryID(), t.SyncSourceID()
		s.applied, s.commitPoint, s.frozenUntil = t.Applied(), t.CommitPoint(), t.FrozenUntil()
		if i := s.cfg.MemberIndex(s.primaryID); i >= 0 {
			s.primaryHost = s.cfg.Members[i].Host
		}
	}
	c.publishCommitPointLocked(s)
	old := c.snap.Swap(s)
	if old == nil || old.key() != s.key() {
		c.notifyLocked()
	}
}

// memberHost returns the host of member id in s's config, or "".
func (s *snapshot) memberHost(id int) string {
	if i := s.cfg.MemberIndex(id); i >= 0 {
		return s.cfg.Members[i].Host
	}
	return ""
}

// self returns this member's config, if it is in the config.
func (s *snapshot) self() (topology.MemberConfig, bool) {
	if i := s.cfg.MemberIndex(s.selfID); i >= 0 && s.selfID >= 0 {
		return s.cfg.Members[i], true
	}
	return topology.MemberConfig{}, false
}
