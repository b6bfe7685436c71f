package topology

import "time"

// Tick advances time: it sends heartbeats when due, marks silent members
// down, and fires the election, takeover, catch-up and step-down timers.
func (c *Coordinator) Tick(now time.Time) []Action {
	if c.self < 0 {
		return nil
	}
	var acts []Action
	if !now.Before(c.heartbeatAt) {
		acts = append(acts, SendHeartbeats{Targets: c.others()})
		c.heartbeatAt = now.Add(c.cfg.HeartbeatInterval())
	}
	c.markSilentDown(now)
	acts = c.checkPrimary(now, acts)
	acts = c.checkElection(now, acts)
	acts = c.updateDirect(now, acts)
	return c.checkSyncSource(now, acts)
}

// others returns the _ids of every member but this one.
func (c *Coordinator) others() []int {
	var out []int
	for i, m := range c.cfg.Members {
		if i != c.self {
			out = append(out, m.ID)
		}
	}
	return out
}

// heartbeatTimeout is how long a member may stay silent before it counts
// as down: relaydb uses the election timeout (MongoDB's heartbeatTimeoutSecs
// is a separate 10 s).
func (c *Coordinator) heartbeatTimeout() time.Duration { return c.cfg.ElectionTimeout() }

func (c *Coordinator) markSilentDown(now time.Time) {
	for i := range c.members {
		m := &c.members[i]
		if i != c.self && m.up && now.Sub(m.lastResponse) > c.heartbeatTimeout() {
			c.markDown(i)
		}
	}
}

func (c *Coordinator) markDown(i int) {
	c.members[i].up = false
	c.members[i].state = StateDown
	if c.primary == i {
		c.primary = -1
	}
}

// HeartbeatResponse records a heartbeat answer from r.From.
func (c *Coordinator) HeartbeatResponse(now time.Time, r HeartbeatReply) []Action {
	i := c.cfg.MemberIndex(r.From)
	if i < 0 || i == c.self || c.self < 0 {
		return nil
	}
	c.recordHeartbeat(now, i, r)
	acts := c.updateTerm(now, r.Term, nil)
	acts = c.notePrimary(now, i, r, acts)
	if r.DirectReaders != nil && i == c.primary {
		c.directFrom, c.primaryDirect = i, r.DirectReaders
	}
	acts = c.learnCommitPoint(i, r, acts)
	acts = c.updateCommitPoint(acts)
	acts = c.checkCatchUp(now, acts)
	acts = c.checkStepDownWait(now, acts)
	return c.checkSyncSource(now, acts)
}

func (c *Coordinator) recordHeartbeat(now time.Time, i int, r HeartbeatReply) {
	m := &c.members[i]
	m.up, m.lastResponse = true, now
	m.state, m.term, m.rtt = r.State, r.Term, m.rtts.add(r.RTT)
	m.syncSource = r.SyncSource
	c.advancePositions(m, r.Written, r.Applied, r.Durable)
}

func (c *Coordinator) advancePositions(m *memberData, written, applied, durable OpTime) {
	written = maxOpTime(written, applied)
	m.written = maxOpTime(m.written, written)
	m.applied = maxOpTime(m.applied, applied)
	m.durable = maxOpTime(m.durable, durable)
}

// notePrimary tracks which member is primary and keeps the election timer
// from firing while a primary of our term answers.
func (c *Coordinator) notePrimary(now time.Time, i int, r HeartbeatReply, acts []Action) []Action {
	if r.State != StatePrimary {
		if c.primary == i {
			c.primary = -1
		}
		return acts
	}
	if r.Term < c.term || c.state == StatePrimary {
		return acts
	}
	c.primary = i
	c.resetElectionTimer(now)
	c.schedulePriorityTakeover(now)
	return acts
}

// learnCommitPoint: a secondary adopts the commit point of the primary or
// its sync source, capped at its own applied OpTime and only within the
// term of its last applied entry (an entry of an older term at the same
// position may be one that will be rolled back).
func (c *Coordinator) learnCommitPoint(i int, r HeartbeatReply, acts []Action) []Action {
	if c.state == StatePrimary || (i != c.primary && i != c.syncSource) {
		return acts
	}
	return c.adoptCommitPoint(r.CommitPoint, acts)
}

func (c *Coordinator) adoptCommitPoint(cp OpTime, acts []Action) []Action {
	applied := c.me().applied
	if cp.Term != applied.Term {
		return acts
	}
	return c.advanceCommitPoint(minOpTime(cp, applied), acts)
}

// HeartbeatFailed records that from did not answer (after the I/O layer's
// retries): it counts as DOWN until it answers again.
func (c *Coordinator) HeartbeatFailed(now time.Time, from int) []Action {
	i := c.cfg.MemberIndex(from)
	if i < 0 || i == c.self || c.self < 0 {
		return nil
	}
	c.markDown(i)
	return c.checkSyncSource(now, nil)
}

// UpdatePosition records a member's positions from replSetUpdatePosition
// (sent by it or forwarded by a member that syncs from it) in the sender's
// term: a primary that sees a newer term steps down before counting them,
// so a deposed primary never commits with the votes of a newer term.
func (c *Coordinator) UpdatePosition(now time.Time, member int, term int64, written, applied, durable OpTime) []Action {
	i := c.cfg.MemberIndex(member)
	if i < 0 || i == c.self {
		return nil
	}
	acts := c.updateTerm(now, term, nil)
	m := &c.members[i]
	c.advancePositions(m, written, applied, durable)
	m.lastResponse, m.up = now, true
	acts = c.updateCommitPoint(acts)
	return c.checkStepDownWait(now, acts)
}

// LocalWrite records an oplog entry this primary wrote (the no-op that
// starts its term first).
func (c *Coordinator) LocalWrite(now time.Time, op OpTime) []Action {
	if c.state == StatePrimary && c.firstOpOfTerm.IsZero() && op.Term == c.term {
		c.firstOpOfTerm = op
	}
	c.advancePositions(c.me(), op, op, OpTime{})
	return c.updateCommitPoint(nil)
}

// LocalApplied records this member's progress: op written and applied.
func (c *Coordinator) LocalApplied(now time.Time, op OpTime) []Action {
	c.advancePositions(c.me(), op, op, OpTime{})
	acts := c.updateCommitPoint(nil)
	return c.checkCatchUp(now, acts)
}

// LocalDurable records that this member's oplog is durable through op.
func (c *Coordinator) LocalDurable(now time.Time, op OpTime) []Action {
	c.advancePositions(c.me(), OpTime{}, OpTime{}, op)
	return c.updateCommitPoint(nil)
}

// SetFollowerState moves a non-primary member between STARTUP2,
// RECOVERING, ROLLBACK and SECONDARY (initial sync, maintenance mode,
// rollback). Only a SECONDARY stands for election.
func (c *Coordinator) SetFollowerState(now time.Time, s MemberState) []Action {
	if c.state == StatePrimary || c.self < 0 || c.state == StateArbiter {
		return nil
	}
	c.resetElectionTimer(now)
	return c.setState(s, nil)
}

// Heartbeat is what this member answers to a replSetHeartbeat: its own
// state and positions, as HeartbeatReply carries them.
func (c *Coordinator) Heartbeat() HeartbeatReply {
	me := c.me()
	return HeartbeatReply{
		From: c.SelfID(), State: c.state, Term: c.term,
		ConfigVersion: c.cfg.Version, ConfigTerm: c.cfg.Term,
		Applied: me.applied, Durable: me.durable, Written: me.written,
		CommitPoint: c.commitPoint, SyncSource: c.SyncSourceID(),
		DirectReaders: c.DirectReaders(),
	}
}

// LocalRolledBack records that rollback truncated this member's oplog to
// op: its positions move back, the only event that moves them back.
func (c *Coordinator) LocalRolledBack(now time.Time, op OpTime) []Action {
	me := c.me()
	me.written, me.applied, me.durable = op, op, minOpTime(me.durable, op)
	return nil
}
