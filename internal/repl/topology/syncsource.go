package topology

import (
	"math"
	"time"
)

// maxRTTChangesPerHour is MongoDB's maxNumSyncSourceChangesPerHour: how
// often a closer candidate alone may move us off a working source.
const maxRTTChangesPerHour = 3

// syncsFromPrimaryOnly reports whether this member must pull from the
// primary: chaining disallowed, or chainingMode "auto" and a member the
// primary lists as a direct reader (a voter also while the primary
// published no list).
func (c *Coordinator) syncsFromPrimaryOnly() bool {
	s := c.cfg.Settings
	if !s.ChainingAllowed {
		return true
	}
	if s.ChainingMode != "auto" {
		return false
	}
	known, listed := c.directListed()
	if !c.cfg.Members[c.self].Voter() {
		return listed // the feeder (autofeeder.go)
	}
	return !known || listed
}

// autoChains reports whether this member chains in mode "auto": a member
// the primary's list leaves out (a voter: only once there is a list).
func (c *Coordinator) autoChains() bool {
	return c.cfg.Settings.ChainingMode == "auto" && !c.syncsFromPrimaryOnly()
}

// checkSyncSource keeps the sync source or picks a new one, returning a
// ChangeSyncSource action when it changes. Only changes made for a closer
// candidate count against the hourly budget.
func (c *Coordinator) checkSyncSource(now time.Time, acts []Action) []Action {
	if c.self < 0 || c.state == StateArbiter || c.writable {
		return c.setSyncSource(-1, false, acts)
	}
	c.pruneDenied(now)
	byRTT := false
	if c.syncSource >= 0 {
		var change bool
		if change, byRTT = c.shouldChangeSyncSource(now); !change {
			return acts
		}
	}
	next, forced := c.chooseSyncSource()
	if byRTT && next >= 0 && next != c.syncSource {
		c.rttChanges = append(c.rttChanges, now)
	}
	return c.setSyncSource(next, forced, acts)
}

func (c *Coordinator) setSyncSource(i int, forced bool, acts []Action) []Action {
	c.syncSourceForced = forced && i >= 0
	if i == c.syncSource {
		return acts
	}
	c.syncSource = i
	if i < 0 {
		return append(acts, ChangeSyncSource{ID: -1})
	}
	return append(acts, ChangeSyncSource{ID: c.cfg.Members[i].ID, Host: c.cfg.Members[i].Host})
}

// usable reports whether member i can serve the oplog at all: up, PRIMARY
// or SECONDARY, holding data.
func (c *Coordinator) usable(i int) bool {
	m := c.members[i]
	return i != c.self && m.up && m.state.Readable() && m.cfg.DataBearing()
}

// shouldChangeSyncSource: the source died or stalled (see sourceStalled)
// while another member is ahead of us, the mode wants another kind of
// source, it lags the primary by more than MaxSyncSourceLag, it carries too
// many readers (mode "auto"), or a clearly closer candidate appeared
// (byRTT).
func (c *Coordinator) shouldChangeSyncSource(now time.Time) (change, byRTT bool) {
	cur := c.syncSource
	switch {
	case !c.usable(cur) || c.isDenied(cur):
		return true, false
	case c.sourceStalled(cur) && c.someoneAhead(): // a stalled source has failed, forced or not
		return true, false
	case c.syncSourceForced:
		return false, false
	case c.syncsFromPrimaryOnly():
		return cur != c.primary && c.primary >= 0 && c.usable(c.primary), false
	case c.laggingBehindPrimary(cur) && c.bestCandidate(true) >= 0:
		return true, false
	case c.autoChains() && c.overFanout(cur):
		return true, false
	case c.autoChains() && cur == c.primary && c.autoCandidate() >= 0:
		return true, false
	case c.autoChains() && c.shallowerCandidate(cur):
		return true, false
	case c.autoChains() && c.leaveVoterSource(cur):
		return true, false
	}
	return c.closerCandidate(now, cur), true
}

// closerCandidate reports whether a candidate beats the current source's
// RTT by ChangeSyncSourceThreshold, within the hourly change budget.
func (c *Coordinator) closerCandidate(now time.Time, cur int) bool {
	recent := c.rttChanges[:0]
	for _, t := range c.rttChanges {
		if now.Sub(t) < time.Hour {
			recent = append(recent, t)
		}
	}
	c.rttChanges = recent
	if len(recent) >= maxRTTChangesPerHour {
		return false
	}
	best := c.bestCandidate(true)
	if c.autoChains() {
		best = c.autoCandidate()
	}
	return best >= 0 && best != cur && c.members[best].rtt+ChangeSyncSourceThreshold < c.members[cur].rtt
}

// chooseSyncSource picks the source by the mode's rules; forced reports a
// replSetSyncFrom choice.
func (c *Coordinator) chooseSyncSource() (int, bool) {
	if f := c.forceSyncSource; f >= 0 {
		c.forceSyncSource = -1
		if c.usable(f) && !c.isDenied(f) {
			return f, true
		}
	}
	if c.syncsFromPrimaryOnly() {
		if p := c.primary; p >= 0 && c.usable(p) && !c.members[p].applied.Less(c.me().applied) {
			return p, false
		}
		return -1, false
	}
	if c.autoChains() {
		if i := c.autoCandidate(); i >= 0 {
			return i, false
		}
	}
	if i := c.bestCandidate(true); i >= 0 {
		return i, false
	}
	return c.bestCandidate(false), false
}

// eligible applies the chaining rules to candidate i: usable, not hidden,
// building indexes if we do, strictly ahead of our last fetched OpTime
// (the primary may be level: it is the root of every chain), not pulling
// from us directly or through a chain (no cycles); strict also refuses
// members more delayed than us or lagging the primary by more than
// MaxSyncSourceLag.
func (c *Coordinator) eligible(i int, strict bool) bool {
	if !c.sourceable(i) {
		return false
	}
	m, me := c.members[i], c.me()
	switch {
	case !c.ahead(i) && !(i == c.primary && m.applied == c.lastFetched()):
		return false
	case strict && m.cfg.SecondaryDelaySecs > me.cfg.SecondaryDelaySecs:
		return false
	case strict && c.laggingBehindPrimary(i):
		return false
	}
	return true
}

// sourceable: the checks every candidate passes wherever its position:
// usable, not hidden, building indexes if we do, and not pulling from us
// directly or through a chain.
func (c *Coordinator) sourceable(i int) bool {
	if !c.usable(i) {
		return false
	}
	m, me := c.members[i], c.me()
	return !m.cfg.Hidden && !(me.cfg.BuildIndexes && !m.cfg.BuildIndexes) && !c.chainReaches(i, c.self) && !c.isDenied(i)
}

// laggingBehindPrimary reports whether member i is more than
// MaxSyncSourceLag behind the primary's applied OpTime.
func (c *Coordinator) laggingBehindPrimary(i int) bool {
	if c.primary < 0 || i == c.primary {
		return false
	}
	p, m := c.members[c.primary].applied, c.members[i].applied
	return time.Duration(int64(p.TS.T)-int64(m.TS.T))*time.Second > MaxSyncSourceLag
}

// bestCandidate returns the eligible member with the lowest RTT (lowest
// _id on ties), or -1.
func (c *Coordinator) bestCandidate(strict bool) int {
	return c.closest(func(i int) bool { return c.eligible(i, strict) })
}

// autoCandidate returns, for a member that chains in mode "auto", the
// SECONDARY with room under the fan-out cap, eligible or a near feeder,
// about as close as the closest such candidate (within
// ChangeSyncSourceThreshold of its RTT), fewest sync-source hops from the
// primary among those, closest on ties; -1 if none. Few hops build a
// breadth-first tree under the cap (every hop is one more process
// fetching, applying and forwarding positions; with equal distances
// "closest" alone grew chains 6-7 hops deep at 15 members); the distance
// band keeps a member from crossing a long link for a shallower source
// when near ones exist (with three zones at 1 ms, breadth-first alone
// sent members to other zones). With a feeder listed, non-voters come
// first (autofeeder.go).
func (c *Coordinator) autoCandidate() int {
	if c.feederListed() {
		if i := c.autoCandidateAmong(func(i int) bool { return !c.cfg.Members[i].Voter() }); i >= 0 {
			return i
		}
	}
	return c.autoCandidateAmong(func(int) bool { return true })
}

// autoCandidateAmong is autoCandidate over the members ok accepts.
func (c *Coordinator) autoCandidateAmong(ok func(int) bool) int {
	var cands []int
	near := time.Duration(math.MaxInt64)
	for i := range c.members {
		if i == c.primary || !ok(i) || !(c.eligible(i, true) || c.nearFeeder(i)) ||
			c.readers(i, math.MaxInt) >= c.cfg.ChainFanout() {
			continue
		}
		cands = append(cands, i)
		near = min(near, c.members[i].rtt)
	}
	best, bestHops := -1, 0
	for _, i := range cands {
		if c.members[i].rtt > near+ChangeSyncSourceThreshold {
			continue
		}
		h := c.hops(i)
		if best < 0 || h < bestHops || (h == bestHops && c.members[i].rtt < c.members[best].rtt) {
			best, bestHops = i, h
		}
	}
	return best
}

// hops is how many sync-source links separate member i from the primary
// as the latest heartbeats report them (the primary itself: 0); a chain
// that does not reach the primary counts as one longer than any can be.
func (c *Coordinator) hops(i int) int {
	for n, j := 0, i; j >= 0 && n <= len(c.members); n, j = n+1, c.sourceOf(j) {
		if j == c.primary {
			return n
		}
	}
	return len(c.members) + 1
}

// shallowerCandidate: in mode "auto", a candidate sits at least two hops
// closer to the primary than our source (one hop could be a tie the move
// itself undoes).
func (c *Coordinator) shallowerCandidate(cur int) bool {
	best := c.autoCandidate()
	return best >= 0 && best != cur && c.hops(best)+2 <= c.hops(cur)
}

// nearFeeder: member i pulls from the primary, directly or through a
// chain, and was at most a heartbeat round behind our last fetched entry
// when it last reported. Under steady writes no secondary ever looks
// strictly ahead of one that pulls from the primary (positions of peers
// are as old as their last heartbeat), so a member the primary moves off
// itself would never find a source; a near feeder catches up within
// milliseconds and the fetcher waits that long (fetcher.BehindWait).
func (c *Coordinator) nearFeeder(i int) bool {
	if !c.sourceable(i) {
		return false
	}
	m, me := c.members[i], c.me()
	if m.cfg.SecondaryDelaySecs > me.cfg.SecondaryDelaySecs {
		return false
	}
	if c.primary < 0 || (c.sourceOf(i) != c.primary && !c.chainReaches(i, c.primary)) {
		return false
	}
	slack := int64(2*c.cfg.HeartbeatInterval()/time.Second) + 1
	return int64(c.lastFetched().TS.T)-int64(m.applied.TS.T) <= slack
}

func (c *Coordinator) closest(ok func(int) bool) int {
	best := -1
	for i := range c.members {
		if !ok(i) {
			continue
		}
		if best < 0 || c.members[i].rtt < c.members[best].rtt {
			best = i
		}
	}
	return best
}

// readers counts the other members that report member i as their sync
// source and whose _id is below limit (all others when limit is -1 or
// above every _id).
func (c *Coordinator) readers(i, limit int) int {
	id, n := c.cfg.Members[i].ID, 0
	for j, m := range c.members {
		if j != c.self && j != i && m.up && m.syncSource == id && m.cfg.ID < limit {
			n++
		}
	}
	return n
}

// overFanout: our source already serves the cap in members of lower _id,
// so we are the one to move (a deterministic choice every member makes
// alike, so an overfull source sheds exactly the surplus).
func (c *Coordinator) overFanout(cur int) bool {
	return cur != c.primary && c.readers(cur, c.SelfID()) >= c.cfg.ChainFanout()
}
