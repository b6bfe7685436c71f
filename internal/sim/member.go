package sim

import (
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/repl/topology"
)

// DB and Coll name the collection the simulated clients write to.
const (
	DB   = "test"
	Coll = "c"
)

// write is one document a primary accepted.
type write struct {
	id int64
	op topology.OpTime
}

// Step advances the clock by one step: it delivers the messages now due,
// ticks every live member and starts the fetches that are due.
func (cl *Cluster) Step() {
	cl.now = cl.now.Add(cl.opts.Step)
	for _, m := range cl.net.due(cl.now) {
		cl.deliver(m)
	}
	for _, m := range cl.members {
		if m.alive {
			cl.do(m, m.topo.Tick(cl.now))
		}
	}
	for _, m := range cl.members {
		cl.startFetch(m)
	}
	cl.chk.afterStep(cl)
}

// Run steps for d of simulated time.
func (cl *Cluster) Run(d time.Duration) {
	for end := cl.now.Add(d); cl.now.Before(end); {
		cl.Step()
	}
}

// do carries out a member's topology actions, as package repl does.
func (cl *Cluster) do(m *Member, acts []topology.Action) {
	for _, a := range acts {
		cl.do1(m, a)
	}
}

func (cl *Cluster) do1(m *Member, a topology.Action) {
	switch a := a.(type) {
	case topology.SendHeartbeats:
		for _, to := range a.Targets {
			cl.send(message{kind: msgHeartbeat, from: m.idx, to: cl.cfg.MemberIndex(to)})
		}
	case topology.SendVoteRequests:
		req := m.topo.VoteRequestFor(a)
		for _, to := range a.Targets {
			cl.send(message{kind: msgVoteRequest, from: m.idx, to: cl.cfg.MemberIndex(to), req: req})
		}
	case topology.PersistVote:
		m.term, m.lastVote = a.Term, a
	case topology.ElectionWon:
		cl.chk.elected(cl, m, a.Term)
	case topology.BecomePrimary:
		cl.becomePrimary(m, a.Term)
	case topology.StepDown:
		cl.eventf("n%d step-down: %s", m.id, a.Reason)
	case topology.ChangeSyncSource:
		m.fetch = fetchState{gen: m.fetch.gen + 1}
	case topology.CommitPointAdvanced:
		m.cat.SetCommitPoint(a.OpTime.TS)
		if m.topo.State() == topology.StatePrimary {
			cl.committed(m, a.OpTime)
		}
	}
}

// becomePrimary stamps the new term on the oplog and writes the no-op that
// starts it, as repl's becomePrimaryLocked.
func (cl *Cluster) becomePrimary(m *Member, term int64) {
	m.cat.Oplog().SetTerm(term)
	r, err := m.cat.WriteNoop(bson.D{{Key: "msg", Value: "new primary"}})
	if err != nil {
		cl.fail(fmt.Errorf("n%d: new primary's no-op: %w", m.id, err))
		return
	}
	cl.eventf("n%d primary term=%d", m.id, term)
	cl.chk.newPrimary(cl, m, term)
	cl.localWrite(m, topology.OpTime{TS: r.TS, Term: term})
}

func (cl *Cluster) localWrite(m *Member, op topology.OpTime) {
	cl.do(m, m.topo.LocalWrite(cl.now, op))
	cl.do(m, m.topo.LocalDurable(cl.now, op))
}

// Write inserts n documents on member idx if it accepts writes (a stale
// primary does, until it learns of a newer term) and returns how many it
// took.
func (cl *Cluster) Write(idx, n int) (int, error) {
	m := cl.members[idx]
	done := 0
	for ; done < n && m.alive && m.topo.Writable(); done++ {
		if err := cl.insert(m); err != nil {
			return done, err
		}
	}
	return done, nil
}

func (cl *Cluster) insert(m *Member) error {
	coll, _, err := m.cat.EnsureCollection(DB, Coll)
	if err != nil {
		return fmt.Errorf("n%d: create %s.%s: %w", m.id, DB, Coll, err)
	}
	cl.nextDoc++
	id := cl.nextDoc
	doc := bson.D{{Key: "_id", Value: id}, {Key: "by", Value: int32(m.id)}, {Key: "term", Value: m.topo.Term()}}
	if _, err := m.cat.Insert(coll, doc); err != nil {
		return fmt.Errorf("n%d: insert %d: %w", m.id, id, err)
	}
	op := m.last()
	m.pending = append(m.pending, write{id: id, op: op})
	cl.localWrite(m, op)
	return nil
}

// Primary returns the index of the writable member with the highest term,
// -1 if none.
func (cl *Cluster) Primary() int {
	best, term := -1, int64(-1)
	for i, m := range cl.members {
		if m.alive && m.topo.Writable() && m.topo.Term() > term {
			best, term = i, m.topo.Term()
		}
	}
	return best
}

// committed records the primary's pending writes its commit point now
// covers and that its oplog still holds.
func (cl *Cluster) committed(m *Member, cp topology.OpTime) {
	keep := m.pending[:0]
	for _, w := range m.pending {
		if cp.Less(w.op) {
			keep = append(keep, w)
			continue
		}
		if has, err := hasEntry(m, w.op); err != nil {
			cl.fail(err)
		} else if has {
			cl.chk.commit(w)
		}
	}
	m.pending = keep
}
