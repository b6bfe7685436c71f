package topology

import "time"

// catchUp is the period after winning an election in which the new primary
// applies what the freshest member it knows of has (MongoDB's primary
// catch-up), so fewer writes of the old term are rolled back.
type catchUp struct {
	target   OpTime
	deadline time.Time // zero: unbounded
}

func (c *Coordinator) startCatchUp(now time.Time, acts []Action) []Action {
	target := c.me().applied
	for i, m := range c.members {
		if i != c.self && m.up && m.cfg.DataBearing() {
			target = maxOpTime(target, m.applied)
		}
	}
	timeout := c.cfg.CatchUpTimeout()
	if !c.me().applied.Less(target) || timeout == 0 {
		return c.finishCatchUp(acts)
	}
	c.catchUp = &catchUp{target: target}
	if timeout > 0 {
		c.catchUp.deadline = now.Add(timeout)
	}
	return c.checkSyncSource(now, acts)
}

// checkCatchUp ends catch-up once this member reached the target or the
// timeout passed.
func (c *Coordinator) checkCatchUp(now time.Time, acts []Action) []Action {
	cu := c.catchUp
	if cu == nil {
		return acts
	}
	if !c.me().applied.Less(cu.target) || (!cu.deadline.IsZero() && !now.Before(cu.deadline)) {
		return c.finishCatchUp(acts)
	}
	return acts
}

// finishCatchUp makes the primary writable; the I/O layer writes the
// no-op of the new term next and reports it with LocalWrite.
func (c *Coordinator) finishCatchUp(acts []Action) []Action {
	c.catchUp = nil
	c.writable = true
	acts = append(acts, BecomePrimary{Term: c.term})
	if c.syncSource >= 0 {
		c.syncSource, c.syncSourceForced = -1, false
		acts = append(acts, ChangeSyncSource{ID: -1})
	}
	return acts
}
