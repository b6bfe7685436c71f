package repl

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

// sendVoteRequestsLocked sends replSetRequestVotes to a's targets; each
// answer (a failure counts as a refusal) goes to the topology.
// REQUIRES: c.mu (the vote of a real election is already durable).
func (c *Coordinator) sendVoteRequestsLocked(a topology.SendVoteRequests) {
	cfg := c.mu.topo.Config()
	req := c.mu.topo.VoteRequestFor(a)
	cmd := bson.D{
		{Key: "replSetRequestVotes", Value: int32(1)}, {Key: "setName", Value: cfg.Name},
		{Key: "dryRun", Value: req.DryRun}, {Key: "term", Value: req.Term},
		{Key: "candidateIndex", Value: int64(cfg.MemberIndex(req.Candidate))},
		{Key: "configVersion", Value: req.ConfigVersion}, {Key: "configTerm", Value: req.ConfigTerm},
		{Key: "lastAppliedOpTime", Value: opTimeDoc(req.LastApplied)},
	}
	timeout := cfg.ElectionTimeout()
	for _, id := range a.Targets {
		if i := cfg.MemberIndex(id); i >= 0 {
			id, host := id, cfg.Members[i].Host
			c.opts.Transport.Send(host, cmd, timeout, func(reply bson.D, err error) {
				c.voteAnswer(id, host, a.DryRun, a.Term, reply, err)
			})
		}
	}
}

// voteAnswer hands a vote answer (a failure counts as a refusal) to the
// topology.
func (c *Coordinator) voteAnswer(id int, host string, dryRun bool, term int64, reply bson.D, err error) {
	vr := topology.VoteReply{Reason: "no answer"}
	if err == nil {
		vr = parseVoteReply(reply)
	}
	c.log.Debug("vote answer", "from", host, "dryRun", dryRun, "term", term, "granted", vr.Granted, "reason", vr.Reason, "err", err)
	c.event(func(now time.Time) []topology.Action { return c.mu.topo.VoteResponse(now, id, dryRun, term, vr) })
}

func parseVoteReply(d bson.D) topology.VoteReply {
	var r topology.VoteReply
	r.Term = lookupInt(d, "term")
	g, _ := bsonx.Get(d, "voteGranted")
	r.Granted = truthy(g)
	r.Reason, _ = lookupString(d, "reason")
	return r
}

// handleRequestVotes answers replSetRequestVotes; a granted real vote is
// durable before the answer leaves.
func (c *Coordinator) handleRequestVotes(cmd bson.D) (bson.D, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mu.topo == nil {
		return nil, mongoerr.New(mongoerr.NotYetInitialized, "no replset config has been received")
	}
	cfg := c.mu.topo.Config()
	if name, _ := lookupString(cmd, "setName"); name != cfg.Name {
		return nil, mongoerr.New(codeInconsistentReplicaSetNames,
			"replSetRequestVotes: set name %s does not match ours (%s)", name, cfg.Name)
	}
	idx := int(lookupInt(cmd, "candidateIndex"))
	cand := -1
	if idx >= 0 && idx < len(cfg.Members) {
		cand = cfg.Members[idx].ID
	}
	dry, _ := bsonx.Get(cmd, "dryRun")
	last, _ := bsonx.Get(cmd, "lastAppliedOpTime")
	req := topology.VoteRequest{
		Candidate: cand, Term: lookupInt(cmd, "term"), DryRun: truthy(dry),
		ConfigVersion: lookupInt(cmd, "configVersion"), ConfigTerm: lookupInt(cmd, "configTerm"),
		LastApplied: parseOpTime(last),
	}
	reply, acts := c.mu.topo.VoteRequest(c.now(), req)
	c.applyLocked(acts)
	c.publishLocked()
	return bson.D{{Key: "term", Value: reply.Term}, {Key: "voteGranted", Value: reply.Granted},
		{Key: "reason", Value: reply.Reason}}, nil
}

// electionID is hello's electionId: an ObjectID that grows with the term
// (MongoDB's OID::fromTerm: 0x7fffffff, then the term, big-endian).
func electionID(term int64) bson.ObjectID {
	var id bson.ObjectID
	id[0], id[1], id[2], id[3] = 0x7f, 0xff, 0xff, 0xff
	for i := 0; i < 8; i++ {
		id[4+i] = byte(term >> (56 - 8*i))
	}
	return id
}
