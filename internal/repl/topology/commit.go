package topology

import (
	"slices"

	"github.com/relaydb/relaydb/internal/bugs"
)

// position returns the OpTime of m that counts for a write concern: its
// durable OpTime when durable is set, else its written one.
func position(m memberData, durable bool) OpTime {
	if durable {
		return m.durable
	}
	return m.written
}

// updateCommitPoint recomputes a primary's majority commit point: the
// newest OpTime that WriteMajority voting data-bearing members have
// (written, or durable with writeConcernMajorityJournalDefault). It never
// commits before the first entry of the primary's own term is majority
// replicated: older-term entries are committed only by being its prefix.
func (c *Coordinator) updateCommitPoint(acts []Action) []Action {
	if c.state != StatePrimary || c.firstOpOfTerm.IsZero() {
		return acts
	}
	durable := c.cfg.WriteConcernMajorityJournalDefault
	var pos []OpTime
	for _, m := range c.members {
		if (m.cfg.Voter() || bugs.On(bugs.CommitOverNonVoters)) && m.cfg.DataBearing() {
			pos = append(pos, position(m, durable))
		}
	}
	k := c.cfg.WriteMajority()
	if k < 1 || len(pos) < k {
		return acts
	}
	slices.SortFunc(pos, func(a, b OpTime) int { return b.Compare(a) })
	cand := pos[k-1]
	if cand.Less(c.firstOpOfTerm) {
		return acts
	}
	return c.advanceCommitPoint(cand, acts)
}

// advanceCommitPoint moves the commit point forward, never back.
func (c *Coordinator) advanceCommitPoint(op OpTime, acts []Action) []Action {
	if !c.commitPoint.Less(op) {
		return acts
	}
	c.commitPoint = op
	return append(acts, CommitPointAdvanced{OpTime: op})
}

// WriteConcernSatisfied reports whether a write at op satisfies w (nil,
// an integer, "majority", a getLastErrorModes name, or a map of tag name
// to count) with journaling j, as far as this primary knows. w:N counts
// data-bearing members, voting or not; "majority" is the commit point.
func (c *Coordinator) WriteConcernSatisfied(w any, j bool, op OpTime) bool {
	switch v := w.(type) {
	case nil:
		return c.countAt(op, j) >= 1
	case int:
		return v <= 0 || c.countAt(op, j) >= v
	case int32:
		return v <= 0 || c.countAt(op, j) >= int(v)
	case int64:
		return v <= 0 || c.countAt(op, j) >= int(v)
	case float64:
		return v <= 0 || float64(c.countAt(op, j)) >= v
	case string:
		if v == "majority" {
			return c.majoritySatisfied(op, j)
		}
		mode, ok := c.cfg.Settings.GetLastErrorModes[v]
		return ok && c.tagsSatisfied(mode, op, j)
	case map[string]int:
		return c.tagsSatisfied(v, op, j)
	}
	return false
}

// countAt counts data-bearing members that have op.
func (c *Coordinator) countAt(op OpTime, j bool) int {
	n := 0
	for _, m := range c.members {
		if m.cfg.DataBearing() && !position(m, j).Less(op) {
			n++
		}
	}
	return n
}

// majoritySatisfied: op is at or behind the commit point, and with an
// explicit j on a set that commits on written OpTimes, a majority also
// has op durable.
func (c *Coordinator) majoritySatisfied(op OpTime, j bool) bool {
	if c.commitPoint.Less(op) {
		return false
	}
	if !j || c.cfg.WriteConcernMajorityJournalDefault {
		return true
	}
	n := 0
	for _, m := range c.members {
		if m.cfg.Voter() && m.cfg.DataBearing() && !m.durable.Less(op) {
			n++
		}
	}
	return n >= c.cfg.WriteMajority()
}

// tagsSatisfied: for each tag, members with op carry at least the asked
// number of distinct values of it.
func (c *Coordinator) tagsSatisfied(mode map[string]int, op OpTime, j bool) bool {
	for tag, want := range mode {
		seen := map[string]bool{}
		for _, m := range c.members {
			if v, ok := m.cfg.Tags[tag]; ok && m.cfg.DataBearing() && !position(m, j).Less(op) {
				seen[v] = true
			}
		}
		if len(seen) < want {
			return false
		}
	}
	return true
}
