package topology

import (
	"fmt"
	"time"

	"github.com/relaydb/relaydb/internal/bugs"
)

// VoteRequest answers replSetRequestVotes. A real vote (not a dry run) is
// granted at most once per term; the returned actions hold the
// PersistVote that must be durable before the reply is sent.
func (c *Coordinator) VoteRequest(now time.Time, req VoteRequest) (VoteReply, []Action) {
	var acts []Action
	if !req.DryRun {
		acts = c.updateTerm(now, req.Term, acts)
	}
	if reason := c.refuseVote(req); reason != "" {
		return VoteReply{Term: c.term, Reason: reason}, acts
	}
	if !req.DryRun {
		c.lastVote = PersistVote{Term: req.Term, Candidate: req.Candidate}
		acts = append(acts, c.lastVote)
		c.resetElectionTimer(now)
	}
	return VoteReply{Term: c.term, Granted: true}, acts
}

// refuseVote returns why this member will not vote for req, or "".
func (c *Coordinator) refuseVote(req VoteRequest) string {
	ci := c.cfg.MemberIndex(req.Candidate)
	switch {
	case c.self < 0 || !c.cfg.Members[c.self].Voter():
		return "I am not a voting member"
	case ci < 0:
		return fmt.Sprintf("candidate %d is not in my config", req.Candidate)
	case req.Term < c.term:
		return fmt.Sprintf("candidate's term (%d) is lower than mine (%d)", req.Term, c.term)
	case configOlder(req.ConfigTerm, req.ConfigVersion, c.cfg):
		return fmt.Sprintf("candidate's config with {version: %d, term: %d} is older than mine with {version: %d, term: %d}",
			req.ConfigVersion, req.ConfigTerm, c.cfg.Version, c.cfg.Term)
	case !req.DryRun && c.lastVote.Term == req.Term && c.lastVote.Candidate != req.Candidate && !bugs.On(bugs.DoubleVote):
		return fmt.Sprintf("already voted for another candidate (%d) this term (%d)", c.lastVote.Candidate, req.Term)
	case req.LastApplied.Less(c.me().applied):
		return fmt.Sprintf("candidate's data is staler than mine. candidate's last applied OpTime: %s, my last applied OpTime: %s",
			req.LastApplied, c.me().applied)
	}
	return ""
}

func configOlder(term, version int64, cfg Config) bool {
	if term != cfg.Term {
		return term < cfg.Term
	}
	return version < cfg.Version
}

// VoteRequestFor returns the request this member sends for a
// SendVoteRequests action.
func (c *Coordinator) VoteRequestFor(a SendVoteRequests) VoteRequest {
	return VoteRequest{
		Candidate: a.Candidate, Term: a.Term, DryRun: a.DryRun,
		ConfigVersion: c.cfg.Version, ConfigTerm: c.cfg.Term, LastApplied: a.LastApplied,
	}
}
