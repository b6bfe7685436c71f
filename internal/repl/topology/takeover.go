package topology

import "time"

// priorityTakeoverFreshness is MongoDB's priorityTakeoverFreshnessWindowSeconds:
// a takeover candidate must be at most this far behind the primary.
const priorityTakeoverFreshness = 2 * time.Second

// schedulePriorityTakeover arms the takeover timer when this member has a
// higher priority than the primary. Higher-ranked members fire first: the
// delay grows by one heartbeat interval per electable member of higher
// priority.
func (c *Coordinator) schedulePriorityTakeover(now time.Time) {
	if !c.takeoverAt.IsZero() || !c.priorityTakeoverWanted() {
		return
	}
	rank := 0
	mine := c.cfg.Members[c.self].Priority
	for _, m := range c.cfg.Members {
		if m.Electable() && m.Priority > mine {
			rank++
		}
	}
	c.takeoverAt = now.Add(time.Duration(rank+1) * c.cfg.HeartbeatInterval())
}

// priorityTakeoverWanted: we are electable, the primary has a lower
// priority, and we are fresh enough (no more than the freshness window
// behind it) to win without a long catch-up.
func (c *Coordinator) priorityTakeoverWanted() bool {
	if c.self < 0 || c.primary < 0 || c.primary == c.self || !c.cfg.Members[c.self].Electable() {
		return false
	}
	p := c.members[c.primary]
	if p.cfg.Priority >= c.cfg.Members[c.self].Priority {
		return false
	}
	mine := c.me().applied
	if mine.Term < p.applied.Term {
		return false
	}
	lag := int64(p.applied.TS.T) - int64(mine.TS.T)
	return time.Duration(lag)*time.Second <= priorityTakeoverFreshness
}
