package sim

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
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
	cp topology.OpTime // the commit point that covered it (once committed)
}

// initiate runs replSetInitiate on the first member with every member in
// the config; the others learn it by heartbeat and initial-sync.
func (cl *Cluster) initiate() error {
	var members bson.A
	for i, m := range cl.members {
		doc := bson.D{{Key: "_id", Value: int32(m.id)}, {Key: "host", Value: m.host}}
		if i >= topology.MaxVotingMembers {
			doc = append(doc, bson.E{Key: "votes", Value: int32(0)}, bson.E{Key: "priority", Value: int32(0)})
		}
		members = append(members, doc)
	}
	cfg := bson.D{{Key: "_id", Value: SetName}, {Key: "version", Value: int32(1)}, {Key: "members", Value: members}}
	if _, err := cl.members[0].run("admin", bson.D{{Key: "replSetInitiate", Value: cfg}}); err != nil {
		return fmt.Errorf("sim: replSetInitiate: %w", err)
	}
	cl.observe()
	return nil
}

// Step advances the clock by one step: it delivers the messages now due,
// ticks every live member and gives each its background work (local
// oplog, positions, the sync loop's turn), then observes and checks.
func (cl *Cluster) Step() {
	cl.clk.Advance(cl.opts.Step)
	cl.deliverDue(cl.clk.Now())
	for _, m := range cl.members {
		if m.alive {
			m.coord.Tick()
		}
	}
	for _, m := range cl.members {
		if m.alive {
			m.coord.Step()
		}
	}
	cl.reapFailed()
	cl.observe()
	cl.chk.afterStep(cl)
}

// Run steps for d of simulated time.
func (cl *Cluster) Run(d time.Duration) {
	for end := cl.clk.Now().Add(d); cl.clk.Now().Before(end); {
		cl.Step()
	}
}

// observe records what changed on each member since the last step:
// elections (one winner per term), new primaries (each must hold every
// committed write), step-downs, and the writes a primary's commit point
// now covers.
func (cl *Cluster) observe() {
	for _, m := range cl.members {
		if !m.alive {
			continue
		}
		v, was := m.coord.View(), m.view
		m.view = v
		if v.State == topology.StatePrimary {
			cl.chk.elected(cl, m, v.Term)
		}
		switch {
		case v.Writable && (!was.Writable || was.Term != v.Term):
			cl.eventf("n%d primary term=%d", m.id, v.Term)
			cl.chk.newPrimary(cl, m, v.Term)
		case was.Writable && !v.Writable:
			cl.eventf("n%d step-down term=%d", m.id, was.Term)
		}
		switch {
		case v.State == topology.StateStartup2 && was.State != topology.StateStartup2:
			cl.eventf("n%d STARTUP2 (initial sync)", m.id)
		case was.State == topology.StateStartup2 && v.State != topology.StateStartup2:
			cl.eventf("n%d %s", m.id, v.State)
		}
		if v.Writable {
			cl.committed(m, v.CommitPoint)
		}
	}
}

// Write inserts n documents on member idx (through its insert command,
// w:1) while it accepts them (a stale primary does, until it learns of a
// newer term) and returns how many it took.
func (cl *Cluster) Write(idx, n int) (int, error) {
	m := cl.members[idx]
	done := 0
	for done < n && m.alive && !m.fault.failed.Load() && m.coord.View().Writable {
		ok, err := cl.insert(m)
		if err != nil || !ok {
			return done, err
		}
		done++
	}
	return done, nil
}

// insert writes one document on m; false if m's disk failed under it
// (not acknowledged: the process stops).
func (cl *Cluster) insert(m *Member) (bool, error) {
	cl.nextDoc++
	id := cl.nextDoc
	doc := bson.D{{Key: "_id", Value: id}, {Key: "by", Value: int32(m.id)}, {Key: "term", Value: m.view.Term}}
	reply, err := m.run(DB, bson.D{{Key: "insert", Value: Coll}, {Key: "documents", Value: bson.A{doc}},
		{Key: "writeConcern", Value: bson.D{{Key: "w", Value: int32(1)}}}})
	if m.fault.failed.Load() {
		return false, nil // reaped after the step
	}
	if err != nil {
		return false, fmt.Errorf("n%d: insert %d: %w", m.id, id, err)
	}
	if n, _ := bsonx.Get(reply, "n"); !isOne(n) {
		return false, fmt.Errorf("n%d: insert %d: reply %v", m.id, id, reply)
	}
	ts, term := m.cat.Oplog().Top()
	m.pending = append(m.pending, write{id: id, op: topology.OpTime{TS: ts, Term: term}})
	return true, nil
}

// Primary returns the index of the writable member with the highest term,
// -1 if none.
func (cl *Cluster) Primary() int {
	best, term := -1, int64(-1)
	for i, m := range cl.members {
		if v := m.view; m.alive && v.Writable && v.Term > term {
			best, term = i, v.Term
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
			w.cp = cp
			cl.chk.commit(w)
		}
	}
	m.pending = keep
}

// hasEntry reports whether m's oplog holds the entry op (ts and term).
func hasEntry(m *Member, op topology.OpTime) (bool, error) {
	es, err := m.cat.Oplog().Read(op.TS, true, 1)
	if err != nil {
		return false, fmt.Errorf("n%d: read oplog: %w", m.id, err)
	}
	return len(es) == 1 && es[0].OpTime() == op, nil
}

// short is a host without its port ("n1").
func short(host string) string {
	if host == "" {
		return "-"
	}
	for i := range host {
		if host[i] == ':' {
			return host[:i]
		}
	}
	return host
}

func isOne(v any) bool {
	n, ok := bsonx.AsInt64(v)
	return ok && n == 1
}

// StepDown asks m to step down (replSetStepDown: 5 s, catch-up 2 s; force
// skips the catch-up check). The coordinator answers once the outcome is
// known, steps later; the outcome shows in the event log, so this waits
// for nothing and reports only an immediate refusal.
func (cl *Cluster) StepDown(m *Member, force bool) string {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := m.coord.ReplSetStepDown(ctx, bson.D{{Key: "replSetStepDown", Value: int32(5)},
		{Key: "secondaryCatchUpPeriodSecs", Value: int32(2)}, {Key: "force", Value: force}})
	if err != nil && !mongoerr.Is(err, mongoerr.ExceededTimeLimit) {
		return "stepdown: " + err.Error()
	}
	return ""
}
