package topology

import (
	"math/rand/v2"
	"time"
)

// memberData is what this member knows of another, from heartbeats and
// replSetUpdatePosition.
type memberData struct {
	cfg          MemberConfig
	up           bool
	lastResponse time.Time // last successful heartbeat or position update
	state        MemberState
	term         int64
	rtt          time.Duration // distance estimate: the least of the recent RTTs (rtts)
	rtts         rttWindow
	syncSource   int // member _id, -1 for none
	// Positions. Invariant: written >= applied for data-bearing members
	// that report both; durable <= written.
	written, applied, durable OpTime
}

// Options are what a Coordinator starts from: the config, who it is, and
// what it persisted before a restart.
type Options struct {
	Config   Config
	SelfHost string
	Now      time.Time
	Rand     *rand.Rand // draws the election timeout offset; nil means randomly seeded
	Term     int64      // persisted term
	LastVote PersistVote
	// Applied is the last applied OpTime recovered from the oplog.
	Applied OpTime
}

// Coordinator is the replica-set state machine of one member. It is fed
// events with the current time and returns actions; it never blocks, does
// no I/O and keeps no goroutines. It is not safe for concurrent use.
type Coordinator struct {
	cfg     Config
	self    int // index in cfg.Members; -1 when removed
	rng     *rand.Rand
	members []memberData // parallel to cfg.Members; members[self] is us
	state   MemberState

	// Invariant: term >= lastVote.Term; at most one vote per term.
	term     int64
	lastVote PersistVote

	selfHost     string
	primary      int  // index of the primary we know of, -1 if none
	writable     bool // primary past catch-up; implies state == PRIMARY
	electionAt   time.Time
	takeoverAt   time.Time // zero when no priority takeover is scheduled
	heartbeatAt  time.Time
	electedAt    time.Time
	frozenUntil  time.Time
	election     *election
	catchUp      *catchUp
	stepDownWait *stepDownWait

	// Commit point. Invariant: commitPoint never moves backwards and, on a
	// primary, never passes entries of older terms before firstOpOfTerm is
	// majority-replicated.
	commitPoint   OpTime
	firstOpOfTerm OpTime

	syncSource       int // index, -1 for none
	syncSourceForced bool
	rttChanges       []time.Time       // ping-based sync-source changes in the last hour
	forceSyncSource  int               // index requested by replSetSyncFrom, -1 for none
	denied           map[int]time.Time // sources found behind us, until when (syncdeny.go)

	// chainingMode "auto" (autodirect.go): as primary, the demand and the
	// direct-reader list it publishes; as secondary, the list last
	// announced and the member index that announced it.
	demand        ackDemand
	direct        []int
	directFrom    int
	primaryDirect []int
}

// New returns a Coordinator for the member with host opts.SelfHost.
func New(opts Options) *Coordinator {
	c := &Coordinator{
		rng: opts.Rand, term: opts.Term, lastVote: opts.LastVote,
		primary: -1, syncSource: -1, forceSyncSource: -1, directFrom: -1,
	}
	if c.rng == nil {
		// Each member must draw its own election offsets: a shared fixed
		// seed makes candidates time out together and split the vote term
		// after term. Deterministic callers (sims, tests) pass Rand.
		c.rng = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	c.term = max(c.term, c.lastVote.Term, opts.Applied.Term)
	c.selfHost = opts.SelfHost
	c.installConfig(opts.Config, opts.SelfHost)
	if c.self >= 0 {
		me := &c.members[c.self]
		me.applied, me.written, me.durable = opts.Applied, opts.Applied, opts.Applied
	}
	c.resetElectionTimer(opts.Now)
	return c
}

// installConfig replaces the config, keeping what is known of members that
// stay (by _id).
func (c *Coordinator) installConfig(cfg Config, selfHost string) {
	old := map[int]memberData{}
	for _, m := range c.members {
		old[m.cfg.ID] = m
	}
	c.cfg = cfg
	c.members = make([]memberData, len(cfg.Members))
	c.self = cfg.MemberByHost(selfHost)
	for i, mc := range cfg.Members {
		md, ok := old[mc.ID]
		if !ok {
			md = memberData{state: StateUnknown, syncSource: -1}
		}
		md.cfg = mc
		c.members[i] = md
	}
	c.state = c.initialState()
	if c.self >= 0 {
		c.members[c.self].up = true
		c.members[c.self].state = c.state
	}
}

func (c *Coordinator) initialState() MemberState {
	switch {
	case c.self < 0:
		return StateRemoved
	case c.cfg.Members[c.self].ArbiterOnly:
		return StateArbiter
	case c.state == StatePrimary || c.state == StateRollback ||
		c.state == StateRecovering || c.state == StateStartup2:
		return c.state
	}
	return StateSecondary
}

// State returns this member's state.
func (c *Coordinator) State() MemberState { return c.state }

// Term returns the current term.
func (c *Coordinator) Term() int64 { return c.term }

// Writable reports whether this member is primary and accepts writes.
func (c *Coordinator) Writable() bool { return c.writable }

// Config returns the installed config.
func (c *Coordinator) Config() Config { return c.cfg }

// CommitPoint returns the majority commit point this member knows of.
func (c *Coordinator) CommitPoint() OpTime { return c.commitPoint }

// SelfID returns this member's _id, or -1 when it is not in the config.
func (c *Coordinator) SelfID() int { return c.idOf(c.self) }

// PrimaryID returns the _id of the primary this member knows of, or -1.
func (c *Coordinator) PrimaryID() int { return c.idOf(c.primary) }

// SyncSourceID returns the _id of the current sync source, or -1.
func (c *Coordinator) SyncSourceID() int { return c.idOf(c.syncSource) }

func (c *Coordinator) idOf(i int) int {
	if i < 0 {
		return -1
	}
	return c.cfg.Members[i].ID
}

// Applied returns this member's last applied OpTime.
func (c *Coordinator) Applied() OpTime { return c.me().applied }

func (c *Coordinator) me() *memberData {
	if c.self < 0 {
		return &memberData{}
	}
	return &c.members[c.self]
}

// setState moves to s and reports the change.
func (c *Coordinator) setState(s MemberState, acts []Action) []Action {
	if s == c.state {
		return acts
	}
	from := c.state
	c.state = s
	if c.self >= 0 {
		c.members[c.self].state = s
	}
	return append(acts, StateChanged{From: from, To: s})
}

// updateTerm adopts a newer term seen in a message; a primary or candidate
// steps down. Returns the actions that follow.
func (c *Coordinator) updateTerm(now time.Time, term int64, acts []Action) []Action {
	if term <= c.term {
		return acts
	}
	c.term = term
	if c.election != nil {
		c.election = nil
		c.resetElectionTimer(now)
	}
	if c.state == StatePrimary {
		acts = c.stepDown(now, "saw a newer term", acts)
	}
	return acts
}

// electionTimeoutFrom returns now + election timeout + random offset.
func (c *Coordinator) electionTimeoutFrom(now time.Time) time.Time {
	et := c.cfg.ElectionTimeout()
	limit := int64(float64(et) * electionOffsetFraction)
	off := time.Duration(0)
	if limit > 0 {
		off = time.Duration(c.rng.Int64N(limit))
	}
	return now.Add(et + off)
}

func (c *Coordinator) resetElectionTimer(now time.Time) {
	c.electionAt = c.electionTimeoutFrom(now)
}
