package topology

import "time"

// Sync-source denylist. A fetcher that finds its source behind us (the
// source's oplog has nothing at or after our last fetched entry, after
// fetcher.BehindWait) tells the coordinator through SourceBehind; the
// source is then not a candidate for SourceBehindDeny, as MongoDB's
// sync-source resolver denylists a candidate whose oplog does not reach
// our last fetched OpTime. Without it a member kept a source whose chain
// reaches the primary (so never "stalled") but that lagged it, retrying
// it every second for as long as the source stayed behind (issue #14: a
// secondary kept the lagging former primary for 16 s after a step-down,
// and w: "majority" writes waited on it).
//
// Invariant: denied holds member indexes of the installed config; a
// reconfig clears it.

// SourceBehindDeny is how long a source found behind us stays out of the
// candidates.
const SourceBehindDeny = 10 * time.Second

// SourceBehind records that our fetcher found the source host behind us:
// unless it is the primary (the root of every chain, which soon writes
// past us or makes us roll back), it is denylisted and another source is
// chosen at once.
func (c *Coordinator) SourceBehind(now time.Time, host string) []Action {
	i := c.cfg.MemberByHost(host)
	if i < 0 || i == c.self || i == c.primary {
		return nil
	}
	if c.denied == nil {
		c.denied = map[int]time.Time{}
	}
	c.denied[i] = now.Add(SourceBehindDeny)
	if i == c.syncSource {
		c.syncSourceForced = false
	}
	return c.checkSyncSource(now, nil)
}

// pruneDenied forgets denylist entries that expired by now.
func (c *Coordinator) pruneDenied(now time.Time) {
	for i, until := range c.denied {
		if !now.Before(until) {
			delete(c.denied, i)
		}
	}
}

// isDenied reports whether member i is denylisted (as of the last prune).
func (c *Coordinator) isDenied(i int) bool {
	_, ok := c.denied[i]
	return ok
}
