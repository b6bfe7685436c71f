package repl

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

// persistTimeout bounds a durable write of replication state.
const persistTimeout = 10 * time.Second

// applyLocked carries out actions in order. REQUIRES: c.mu.
func (c *Coordinator) applyLocked(acts []topology.Action) {
	for _, a := range acts {
		c.log.Debug("action", "action", a.String())
		switch a := a.(type) {
		case topology.SendHeartbeats:
			c.sendHeartbeatsLocked(a.Targets)
		case topology.SendVoteRequests:
			c.sendVoteRequestsLocked(a)
		case topology.PersistVote:
			c.persistVoteLocked(a)
		case topology.ElectionWon:
			c.log.Info("election won; catching up", "term", a.Term)
			c.mu.electionTerm, c.mu.electedAt = a.Term, c.now()
			c.bumpLocked()
		case topology.BecomePrimary:
			c.becomePrimaryLocked(a.Term)
		case topology.StepDown:
			c.stepDownLocked(a.Reason)
		case topology.StepDownFailed:
			c.answerStepDownLocked(a.Err)
		case topology.ChangeSyncSource:
			c.changeSyncSourceLocked(a.Host)
		case topology.CommitPointAdvanced:
			// Waiters are woken by publishLocked (the commit point is in the snapshot).
		case topology.StateChanged:
			c.log.Info("member state changed", "from", a.From.String(), "to", a.To.String())
			c.cat.SetTTLPaused(a.To != topology.StatePrimary) // only a primary reaps; its deletes replicate
			c.bumpLocked()
		}
	}
}

// persistVoteLocked stores the vote durably; a failure is fatal to the
// vote, so it is logged and the process keeps the in-memory vote (the
// reply is sent only after this returns). REQUIRES: c.mu.
func (c *Coordinator) persistVoteLocked(v topology.PersistVote) {
	ctx, cancel := context.WithTimeout(context.Background(), persistTimeout)
	defer cancel()
	idx := c.mu.topo.Config().MemberIndex(v.Candidate)
	if err := storeVote(ctx, c.cat, v, idx); err != nil {
		c.log.Error("cannot persist vote", "term", v.Term, "candidate", v.Candidate, "err", err)
	}
}

// becomePrimaryLocked drains the sync loop, stamps the new term on the
// oplog, writes the no-op that starts it and then accepts writes.
// REQUIRES: c.mu.
func (c *Coordinator) becomePrimaryLocked(term int64) {
	c.stopSyncerLocked()
	c.cat.Oplog().SetTerm(term)
	r, err := c.cat.WriteNoop(bson.D{{Key: "msg", Value: "new primary"}})
	if err != nil {
		c.log.Error("cannot write the new primary's no-op; stepping down", "term", term, "err", err)
		return
	}
	op := topology.OpTime{TS: r.TS, Term: term}
	c.applyLocked(c.mu.topo.LocalWrite(c.now(), op))
	if hook := c.stepUp.Load(); hook != nil {
		(*hook)()
	}
	c.mu.acceptW = true
	c.bumpLocked()
	c.log.Info("transition to primary complete; accepting writes", "term", term, "noop", op.String())
}

// stepDownLocked stops accepting writes at once and answers a pending
// replSetStepDown. REQUIRES: c.mu.
func (c *Coordinator) stepDownLocked(reason string) {
	c.mu.acceptW = false
	c.bumpLocked()
	c.log.Info("stepping down", "reason", reason)
	c.answerStepDownLocked(nil)
}

// answerStepDownLocked answers a pending replSetStepDown with err.
// REQUIRES: c.mu.
func (c *Coordinator) answerStepDownLocked(err error) {
	if c.mu.stepWait != nil {
		c.mu.stepWait <- err
		c.mu.stepWait = nil
	}
}

// changeSyncSourceLocked (re)starts the sync loop on host ("" = none).
// REQUIRES: c.mu.
func (c *Coordinator) changeSyncSourceLocked(host string) {
	c.stopSyncerLocked()
	c.mu.syncHost = host
	c.bumpLocked()
	if host == "" || c.opts.NewSyncer == nil {
		return
	}
	c.log.Info("sync source changed", "source", host)
	c.mu.syncer = c.opts.NewSyncer(c)
	c.mu.syncer.Start(host, c.mu.topo.Applied())
	c.kickReport()
}

// stopSyncerLocked stops the sync loop, waiting for the batch being
// applied (Syncer callbacks never take c.mu). REQUIRES: c.mu.
func (c *Coordinator) stopSyncerLocked() {
	if c.mu.syncer != nil {
		c.mu.syncer.Stop()
		c.mu.syncer = nil
	}
	c.mu.syncHost = ""
}

// notPrimaryErr is NotWritablePrimary with the label drivers retry on.
func notPrimaryErr() error {
	return mongoerr.New(mongoerr.NotWritablePrimary, "not primary").WithLabels("RetryableWriteError")
}

// SetStepUpHook sets fn, run each time this member becomes primary, after
// the new term's no-op and before any write is accepted (a shard holds the
// critical sections of the migrations it must recover). It runs under the
// coordinator's lock: fn must be quick and must not call the coordinator.
func (c *Coordinator) SetStepUpHook(fn func()) { c.stepUp.Store(&fn) }
