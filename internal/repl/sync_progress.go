package repl

import (
	"time"

	"github.com/relaydb/relaydb/internal/repl/markers"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

// SecondaryDelay returns this member's secondaryDelaySecs from the
// published config (lock-free: the sync loop calls it).
func (c *Coordinator) SecondaryDelay() time.Duration {
	if s := c.load(); s != nil {
		if m, ok := s.self(); ok {
			return time.Duration(m.SecondaryDelaySecs) * time.Second
		}
	}
	return 0
}

// OnInitialSync records that the Syncer started (true) or finished (false)
// an initial sync: the member is STARTUP2 from the start until the data is
// consistent, whatever it applies meanwhile.
func (c *Coordinator) OnInitialSync(active bool) {
	c.post(func(p *pendingPositions) {
		if active {
			p.isStart, p.isDone = true, false
		} else {
			p.isDone = true
		}
	})
}

// feedInitialSyncLocked carries out posted initial-sync transitions, a
// start before a finish. REQUIRES: c.mu, a topology.
func (c *Coordinator) feedInitialSyncLocked(now time.Time, start, done bool) {
	if start {
		c.mu.initialSyncing = true
		if c.mu.topo.State() != topology.StateStartup2 {
			c.applyLocked(c.mu.topo.SetFollowerState(now, topology.StateStartup2))
		}
	}
	if done && c.mu.initialSyncing {
		c.mu.initialSyncing = false
		c.applyLocked(c.mu.topo.SetFollowerState(now, topology.StateSecondary))
	}
}

// startup2IfUnsyncedLocked keeps a member whose initial sync did not
// finish (the catalog's flag survived a restart) in STARTUP2 until the
// Syncer runs it again: its data is not consistent. REQUIRES: c.mu.
func (c *Coordinator) startup2IfUnsyncedLocked() {
	flag, err := markers.InitialSyncFlag(c.cat)
	if err != nil {
		c.log.Error("cannot read the initial-sync flag", "err", err)
	}
	if flag || err != nil {
		c.mu.initialSyncing = true
		c.applyLocked(c.mu.topo.SetFollowerState(c.now(), topology.StateStartup2))
	}
}

// OnSourceBehind records that the fetcher found its sync source host
// behind us: the topology denylists it for a while and picks another
// (topology/syncdeny.go). Posted, not locked: the sync loop calls it and
// a source change stops that loop under c.mu.
func (c *Coordinator) OnSourceBehind(host string) {
	c.post(func(p *pendingPositions) { p.behind = host })
}
