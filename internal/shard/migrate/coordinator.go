package migrate

import (
	"fmt"
	"time"
)

// Phase is where a migration is.
type Phase int

const (
	Created         Phase = iota // the coordinator document is being persisted
	Cloning                      // the recipient clones and catches up
	CriticalSection              // writes to the range wait on the donor
	Committing                   // the recipient confirmed; the config servers commit
	Recovering                   // the commit's outcome is read from the config servers
	Deciding                     // the decision is being persisted
	Done                         // decided and cleaned up
)

var phaseNames = [...]string{"created", "cloning", "critical-section", "committing", "recovering", "deciding", "done"}

func (p Phase) String() string { return phaseNames[p] }

// Decision is a migration's outcome.
type Decision int

const (
	Undecided Decision = iota
	Committed
	Aborted
)

func (d Decision) String() string { return [...]string{"undecided", "committed", "aborted"}[d] }

// Options bound a migration.
type Options struct {
	// CatchUpBytes: the recipient is caught up when its pending mods are
	// at most this many bytes (MongoDB: a few MB or one batch).
	CatchUpBytes int64
	// CloneTimeout aborts a clone that has not caught up by then.
	CloneTimeout time.Duration
	// PollEvery is the wait between recipient status polls.
	PollEvery time.Duration
}

// Coordinator is one migration's state. The zero value is not usable:
// use New.
type Coordinator struct {
	opts     Options
	phase    Phase
	decision Decision
	started  time.Time
	reason   string
	fenced   bool // Recovering: FenceCommit is done
	held     bool // CriticalSection: the donor holds it; commit start was sent
}

// New returns the coordinator of a migration started at now; its first
// action is to persist the coordinator document.
func New(opts Options, now time.Time) (*Coordinator, []Action) {
	c := &Coordinator{opts: opts, phase: Created, started: now}
	return c, []Action{{Kind: PersistCoordinator}}
}

// Phase returns the current phase.
func (c *Coordinator) Phase() Phase { return c.phase }

// Decision returns the decision, Undecided until one is persisted.
func (c *Coordinator) Decision() Decision { return c.decision }

// Step feeds one event at time now and returns what to do next. An event
// that does not fit the phase is answered with no action (a late reply).
func (c *Coordinator) Step(ev Event, now time.Time) []Action {
	if c.phase == Done {
		return nil
	}
	if ev.Kind == SteppedDown {
		return c.stepDown()
	}
	switch c.phase {
	case Created:
		return c.created(ev)
	case Cloning:
		return c.cloning(ev, now)
	case CriticalSection:
		return c.criticalSection(ev)
	case Committing:
		return c.committing(ev)
	case Recovering:
		return c.recovering(ev)
	case Deciding:
		return c.deciding(ev)
	}
	return nil
}

func (c *Coordinator) created(ev Event) []Action {
	if ev.Kind != Persisted {
		return nil
	}
	c.phase = Cloning
	return []Action{{Kind: StartRecipient}}
}

func (c *Coordinator) cloning(ev Event, now time.Time) []Action {
	switch ev.Kind {
	case RecipientFailed:
		return c.abort("recipient: " + ev.Err)
	case RecipientStatus:
		if ev.PendingBytes <= c.opts.CatchUpBytes && ev.Cloned {
			c.phase = CriticalSection
			return []Action{{Kind: EnterCriticalSection}}
		}
		if now.Sub(c.started) > c.opts.CloneTimeout {
			return c.abort(fmt.Sprintf("not caught up after %v (%d bytes pending)", c.opts.CloneTimeout, ev.PendingBytes))
		}
		return []Action{{Kind: PollRecipient, After: c.opts.PollEvery}}
	}
	return nil
}

// criticalSection: first the donor holds the section, then the recipient
// is asked to commit; only its answer to that request lets the commit go
// to the config servers.
func (c *Coordinator) criticalSection(ev Event) []Action {
	switch ev.Kind {
	case SectionEntered:
		if c.held {
			return nil
		}
		c.held = true
		return []Action{{Kind: RecipientCommitStart}}
	case RecipientFailed:
		return c.abort("recipient commit: " + ev.Err)
	case RecipientCommitted:
		if !c.held {
			return nil // not asked yet: a stray reply
		}
		c.phase = Committing
		return []Action{{Kind: CommitOnConfig}}
	}
	return nil
}

func (c *Coordinator) committing(ev Event) []Action {
	switch ev.Kind {
	case ConfigCommitted:
		return c.decide(Committed, "")
	case ConfigRefused:
		return c.abort("config servers refused the commit: " + ev.Err)
	case ConfigUnknown:
		return c.recover()
	}
	return nil
}

// recover learns a commit's outcome from the config servers. First the
// collection's version is bumped past the one the commit carries
// (MongoDB's ensureChunkVersionIsGreaterThan), so a commit request still
// in flight is refused when it lands; then the placement read decides.
func (c *Coordinator) recover() []Action {
	c.phase, c.fenced = Recovering, false
	return []Action{{Kind: FenceCommit}}
}

func (c *Coordinator) recovering(ev Event) []Action {
	switch ev.Kind {
	case Fenced:
		c.fenced = true
		return []Action{{Kind: ReadPlacement}}
	case Placement:
		if !c.fenced {
			return nil
		}
		switch ev.Owner {
		case "recipient":
			return c.decide(Committed, "")
		case "donor":
			return c.abort("the commit did not happen")
		}
		return []Action{{Kind: ReadPlacement, After: c.opts.PollEvery}}
	case ConfigUnknown: // the fence or the read failed: again
		if c.fenced {
			return []Action{{Kind: ReadPlacement, After: c.opts.PollEvery}}
		}
		return []Action{{Kind: FenceCommit, After: c.opts.PollEvery}}
	}
	return nil
}

func (c *Coordinator) deciding(ev Event) []Action {
	if ev.Kind != Persisted {
		return nil
	}
	c.phase = Done
	out := []Action{{Kind: ReleaseCriticalSection}}
	if c.decision == Committed {
		return append(out, Action{Kind: DeleteDonorRange}, Action{Kind: Finish, Decision: Committed})
	}
	return append(out, Action{Kind: DeleteRecipientRange}, Action{Kind: Finish, Decision: Aborted, Reason: c.reason})
}

// stepDown: the donor lost its primary role; the next primary recovers
// the migration from the persisted coordinator document. Before that
// document exists nothing was started: the migration simply ends. With a
// decision persisted (or being persisted) it is persisted again (writes
// are idempotent) and carried out. Otherwise the config servers'
// placement decides: the commit may have been sent by the old primary.
func (c *Coordinator) stepDown() []Action {
	switch c.phase {
	case Created:
		c.phase, c.decision, c.reason = Done, Aborted, "the donor stepped down before the migration started"
		return []Action{{Kind: Finish, Decision: Aborted, Reason: c.reason}}
	case Deciding:
		return []Action{{Kind: PersistDecision, Decision: c.decision}}
	}
	return c.recover()
}

func (c *Coordinator) abort(reason string) []Action { return c.decide(Aborted, reason) }

// decide records the decision and asks for it to be persisted; nothing
// is released or deleted before Persisted arrives.
func (c *Coordinator) decide(d Decision, reason string) []Action {
	c.phase, c.decision, c.reason = Deciding, d, reason
	return []Action{{Kind: PersistDecision, Decision: d}}
}

// Resume returns the coordinator of a migration a new donor primary found
// persisted (MongoDB's migration recovery on step-up): with a decision it
// is persisted again and carried out; without one the config servers'
// placement decides, after the fence (the old primary may have sent the
// commit).
func Resume(opts Options, decision Decision, now time.Time) (*Coordinator, []Action) {
	c := &Coordinator{opts: opts, phase: Recovering, started: now}
	if decision != Undecided {
		c.phase, c.decision = Deciding, decision
		return c, []Action{{Kind: PersistDecision, Decision: decision}}
	}
	return c, c.recover()
}
