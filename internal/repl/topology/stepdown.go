package topology

import (
	"time"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// stepDownWait is a replSetStepDown waiting for an electable secondary to
// catch up.
type stepDownWait struct {
	deadline time.Time
	force    bool
	period   time.Duration // how long to stay unelectable afterwards
}

// stepDown makes a primary SECONDARY at once.
func (c *Coordinator) stepDown(now time.Time, reason string, acts []Action) []Action {
	c.writable = false
	c.catchUp = nil
	c.stepDownWait = nil
	c.primary = -1
	c.resetElectionTimer(now)
	acts = c.setState(StateSecondary, acts)
	return append(acts, StepDown{Reason: reason})
}

// checkPrimary steps a primary down when it has not heard from a majority
// of voters for an election timeout, and runs its catch-up and
// replSetStepDown deadlines.
func (c *Coordinator) checkPrimary(now time.Time, acts []Action) []Action {
	if c.state != StatePrimary {
		return acts
	}
	if !c.seesMajority(now) {
		return c.stepDown(now, "can't see a majority of the set", acts)
	}
	acts = c.checkCatchUp(now, acts)
	return c.checkStepDownWait(now, acts)
}

// seesMajority reports whether a majority of voters (this member
// included) answered within the election timeout.
func (c *Coordinator) seesMajority(now time.Time) bool {
	window := c.cfg.ElectionTimeout()
	if now.Sub(c.electedAt) < window {
		return true
	}
	n := 0
	for i, m := range c.members {
		if m.cfg.Voter() && (i == c.self || (m.up && now.Sub(m.lastResponse) <= window)) {
			n++
		}
	}
	return n >= c.cfg.MajorityVoteCount()
}

// StepDownRequest handles replSetStepDown: step down once an electable
// secondary has caught up (at once if one has), waiting at most
// catchUpPeriod; with force, step down at the deadline regardless. The
// member then stays unelectable for period. The outcome comes as a
// StepDown or StepDownFailed action, now or from a later event.
func (c *Coordinator) StepDownRequest(now time.Time, force bool, period, catchUpPeriod time.Duration) ([]Action, error) {
	if c.state != StatePrimary {
		return nil, mongoerr.New(mongoerr.NotWritablePrimary, "not primary so can't step down")
	}
	if period < catchUpPeriod {
		return nil, mongoerr.New(mongoerr.BadValue, "stepdown period must be longer than secondaryCatchUpPeriodSecs")
	}
	if c.stepDownWait != nil {
		return nil, mongoerr.New(mongoerr.ConflictingOperationInProgress, "a replSetStepDown is already in progress")
	}
	c.stepDownWait = &stepDownWait{deadline: now.Add(catchUpPeriod), force: force, period: period}
	return c.checkStepDownWait(now, nil), nil
}

func (c *Coordinator) checkStepDownWait(now time.Time, acts []Action) []Action {
	w := c.stepDownWait
	if w == nil || c.state != StatePrimary {
		return acts
	}
	if c.caughtUpSecondary() || (w.force && !now.Before(w.deadline)) {
		acts = c.stepDown(now, "replSetStepDown", acts)
		c.frozenUntil = now.Add(w.period)
		return acts
	}
	if !now.Before(w.deadline) {
		c.stepDownWait = nil
		return append(acts, StepDownFailed{Err: mongoerr.New(mongoerr.ExceededTimeLimit,
			"No electable secondaries caught up as of %s. Please use the replSetStepDown command with the argument {force: true} to force node to step down.",
			c.me().applied)})
	}
	return acts
}

// caughtUpSecondary reports whether an electable member that is up has
// applied everything this primary has.
func (c *Coordinator) caughtUpSecondary() bool {
	mine := c.me().applied
	for i, m := range c.members {
		if i != c.self && m.up && m.cfg.Electable() && !m.applied.Less(mine) {
			return true
		}
	}
	return false
}

// Freeze handles replSetFreeze: do not stand for election for d; d == 0
// unfreezes (and in a one-voter set lets this member stand at once).
func (c *Coordinator) Freeze(now time.Time, d time.Duration) ([]Action, error) {
	if c.state == StatePrimary || c.election != nil {
		return nil, mongoerr.New(mongoerr.NotSecondary,
			"cannot freeze node when primary or running for election. state: %s", c.state)
	}
	if d > 0 {
		c.frozenUntil = now.Add(d)
		return nil, nil
	}
	c.frozenUntil = time.Time{}
	if c.cfg.Voters() == 1 && c.canStand(now) {
		return c.startDryRun(now, "unfrozen single voter", nil), nil
	}
	return nil, nil
}

// FrozenUntil returns when this member may stand again (zero: now).
func (c *Coordinator) FrozenUntil() time.Time { return c.frozenUntil }
