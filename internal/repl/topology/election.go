package topology

import "time"

// election is a dry run or real election this member runs as candidate.
type election struct {
	dryRun   bool
	term     int64 // the term being run for (current term + 1 in a dry run)
	deadline time.Time
	reason   string
	granted  map[int]bool // voter index -> vote; self included
}

// canStand reports whether this member may call an election now: an
// electable SECONDARY, not frozen, not already a candidate.
func (c *Coordinator) canStand(now time.Time) bool {
	return c.self >= 0 && c.cfg.Members[c.self].Electable() &&
		c.state == StateSecondary && c.election == nil && !now.Before(c.frozenUntil)
}

// checkElection fires the election timeout, the priority-takeover timer
// and gives up on an election that outlived its deadline.
func (c *Coordinator) checkElection(now time.Time, acts []Action) []Action {
	if c.election != nil && !now.Before(c.election.deadline) {
		c.election = nil
		c.resetElectionTimer(now)
	}
	if c.primary < 0 && !now.Before(c.electionAt) {
		if c.canStand(now) {
			return c.startDryRun(now, "election timeout", acts)
		}
		c.resetElectionTimer(now)
	}
	if !c.takeoverAt.IsZero() && !now.Before(c.takeoverAt) {
		c.takeoverAt = time.Time{}
		if c.canStand(now) && c.priorityTakeoverWanted() {
			return c.startDryRun(now, "priority takeover", acts)
		}
	}
	return acts
}

// startDryRun asks the voters whether they would vote for us in the next
// term without anyone changing term: a member that cannot win does not
// disturb the set (MongoDB's dry-run election).
func (c *Coordinator) startDryRun(now time.Time, reason string, acts []Action) []Action {
	c.election = &election{
		dryRun: true, term: c.term + 1, reason: reason,
		deadline: now.Add(c.cfg.ElectionTimeout()), granted: map[int]bool{},
	}
	return c.requestVotes(now, acts)
}

// startRealElection increments the term, votes for itself durably and asks
// the others.
func (c *Coordinator) startRealElection(now time.Time, acts []Action) []Action {
	c.term++
	c.lastVote = PersistVote{Term: c.term, Candidate: c.SelfID()}
	c.election = &election{
		term: c.term, reason: c.election.reason,
		deadline: now.Add(c.cfg.ElectionTimeout()), granted: map[int]bool{},
	}
	acts = append(acts, c.lastVote)
	return c.requestVotes(now, acts)
}

func (c *Coordinator) requestVotes(now time.Time, acts []Action) []Action {
	e := c.election
	if c.cfg.Members[c.self].Voter() {
		e.granted[c.self] = true
	}
	var targets []int
	for i, m := range c.cfg.Members {
		if i != c.self && m.Voter() {
			targets = append(targets, m.ID)
		}
	}
	if len(targets) > 0 {
		acts = append(acts, SendVoteRequests{
			DryRun: e.dryRun, Term: e.term, Candidate: c.SelfID(),
			LastApplied: c.me().applied, Targets: targets,
		})
	}
	return c.tallyVotes(now, acts)
}

// VoteResponse records a voter's answer to a request for (dryRun, term).
func (c *Coordinator) VoteResponse(now time.Time, from int, dryRun bool, term int64, r VoteReply) []Action {
	acts := c.updateTerm(now, r.Term, nil)
	e := c.election
	i := c.cfg.MemberIndex(from)
	if e == nil || e.dryRun != dryRun || e.term != term || i < 0 || !c.cfg.Members[i].Voter() {
		return acts
	}
	e.granted[i] = r.Granted
	return c.tallyVotes(now, acts)
}

// tallyVotes moves the election on when the votes decide it.
func (c *Coordinator) tallyVotes(now time.Time, acts []Action) []Action {
	e := c.election
	yes, no := 0, 0
	for _, g := range e.granted {
		if g {
			yes++
		} else {
			no++
		}
	}
	need := c.cfg.MajorityVoteCount()
	switch {
	case yes >= need && e.dryRun:
		return c.startRealElection(now, acts)
	case yes >= need:
		return c.winElection(now, acts)
	case c.cfg.Voters()-no < need:
		c.election = nil
		c.resetElectionTimer(now)
	}
	return acts
}

// winElection makes this member PRIMARY (not yet writable) and starts
// catch-up.
func (c *Coordinator) winElection(now time.Time, acts []Action) []Action {
	c.election = nil
	c.takeoverAt = time.Time{}
	c.primary = c.self
	c.electedAt = now
	c.firstOpOfTerm = OpTime{}
	acts = c.setState(StatePrimary, acts)
	acts = append(acts, ElectionWon{Term: c.term}, SendHeartbeats{Targets: c.others()})
	return c.startCatchUp(now, acts)
}
