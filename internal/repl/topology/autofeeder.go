package topology

import "slices"

// The feeder (chainingMode "auto", under write-concern demand): one
// visible non-voter the primary lists next to its voters, so the other
// non-voters chain below it instead of below the voters that acknowledge
// writes. A chaining member that knows a list naming a feeder takes its
// source among non-voters while one is a candidate (autoCandidate), and
// leaves a voter source for one (shouldChangeSyncSource).

// feederCandidate: member i may be listed as the feeder.
func (c *Coordinator) feederCandidate(i int) bool {
	m := c.members[i]
	return i != c.self && m.up && m.state == StateSecondary && !m.cfg.Voter() && !m.cfg.Hidden &&
		m.cfg.DataBearing() && m.cfg.SecondaryDelaySecs == 0
}

// withFeeder adds a feeder to the voters in list: the listed one while it
// stays a candidate, else the closest candidate (lower _id on ties); list
// unchanged when no non-voter can be one. The result is sorted by _id.
func (c *Coordinator) withFeeder(list []int) []int {
	feeder := -1
	for _, id := range c.direct {
		if i := c.cfg.MemberIndex(id); i >= 0 && c.feederCandidate(i) {
			feeder = i
		}
	}
	if feeder < 0 {
		feeder = c.closest(c.feederCandidate)
	}
	if feeder < 0 {
		return list
	}
	out := append(slices.Clone(list), c.cfg.Members[feeder].ID)
	slices.Sort(out)
	return out
}

// listedVoters counts the voters in the primary's own list.
func (c *Coordinator) listedVoters() int {
	n := 0
	for _, id := range c.direct {
		if i := c.cfg.MemberIndex(id); i >= 0 && c.cfg.Members[i].Voter() {
			n++
		}
	}
	return n
}

// feederListed reports whether the list of the primary we know names a
// non-voter: then voters forward to nobody.
func (c *Coordinator) feederListed() bool {
	if known, _ := c.directListed(); !known {
		return false
	}
	for _, id := range c.primaryDirect {
		if i := c.cfg.MemberIndex(id); i >= 0 && !c.cfg.Members[i].Voter() {
			return true
		}
	}
	return false
}

// leaveVoterSource: with a feeder listed, our source is a voter and a
// non-voter can take us.
func (c *Coordinator) leaveVoterSource(cur int) bool {
	if !c.feederListed() || cur == c.primary || !c.cfg.Members[cur].Voter() {
		return false
	}
	best := c.autoCandidate()
	return best >= 0 && !c.cfg.Members[best].Voter()
}
