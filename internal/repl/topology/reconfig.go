package topology

import (
	"time"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// ConfigChanged installs a newer config (replSetReconfig, or one learned
// from a heartbeat). A member removed from the set becomes REMOVED; a
// removed primary steps down.
func (c *Coordinator) ConfigChanged(now time.Time, cfg Config) []Action {
	primary, source, forced := c.idOf(c.primary), c.idOf(c.syncSource), c.idOf(c.forceSyncSource)
	prev := c.state
	c.installConfig(cfg, c.selfHost)
	c.primary, c.syncSource = cfg.MemberIndex(primary), cfg.MemberIndex(source)
	c.forceSyncSource = cfg.MemberIndex(forced)
	c.denied = nil // indexes of the old config
	want := c.state
	c.state = prev
	var acts []Action
	if prev == StatePrimary && c.self < 0 {
		acts = c.stepDown(now, "removed from the replica set config", acts)
	}
	acts = c.setState(want, acts)
	if c.self < 0 {
		c.primary = -1
		return c.setSyncSource(-1, false, acts)
	}
	if c.state == StatePrimary && c.primary != c.self {
		c.primary = c.self
	}
	acts = c.updateCommitPoint(acts)
	return c.checkSyncSource(now, acts)
}

// SyncFromRequest handles replSetSyncFrom: fetch from host next, until it
// fails. It returns the _id of the previous sync source (-1 if none).
func (c *Coordinator) SyncFromRequest(now time.Time, host string) (int, []Action, error) {
	i := c.cfg.MemberByHost(host)
	if err := c.checkSyncFrom(i, host); err != nil {
		return -1, nil, err
	}
	prev := c.SyncSourceID()
	c.forceSyncSource = i
	c.syncSource = -1
	return prev, c.checkSyncSource(now, nil), nil
}

func (c *Coordinator) checkSyncFrom(i int, host string) error {
	switch {
	case c.self < 0:
		return mongoerr.New(mongoerr.NotSecondary, "removed and uninitialized nodes don't sync")
	case c.state == StateArbiter:
		return mongoerr.New(mongoerr.NotSecondary, "arbiters don't sync")
	case c.state == StatePrimary:
		return mongoerr.New(mongoerr.NotSecondary, "primaries don't sync")
	case i < 0:
		return mongoerr.New(mongoerr.NodeNotFound, "Could not find member \"%s\" in replica set", host)
	case i == c.self:
		return mongoerr.New(mongoerr.InvalidOptions, "I cannot sync from myself")
	case c.cfg.Members[i].ArbiterOnly:
		return mongoerr.New(mongoerr.InvalidOptions, "Cannot sync from \"%s\" because it is an arbiter", host)
	case c.me().cfg.BuildIndexes && !c.cfg.Members[i].BuildIndexes:
		return mongoerr.New(mongoerr.InvalidOptions, "Cannot sync from \"%s\" because it does not build indexes", host)
	case !c.members[i].up:
		return mongoerr.New(mongoerr.HostUnreachable, "I cannot reach the requested member: %s", host)
	}
	return nil
}
