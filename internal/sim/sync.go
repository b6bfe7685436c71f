package sim

import (
	"fmt"
	"time"

	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl/applier"
	"github.com/relaydb/relaydb/internal/repl/markers"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

// idleFetchDelay is how long a member waits after an empty batch (the
// awaitData wait of the real fetcher).
const idleFetchDelay = 50 * time.Millisecond

// fetchState is a member's fetcher: at most one request in flight; the
// generation changes with the sync source so stale replies are dropped.
type fetchState struct {
	gen      int
	inFlight bool
	sentAt   time.Time
	nextAt   time.Time
}

// fetchTimeout gives up on a lost request or reply.
const fetchTimeout = time.Second

// startFetch asks m's sync source for the entries after m's newest one.
func (cl *Cluster) startFetch(m *Member) {
	if !m.alive || m.topo.State() == topology.StatePrimary {
		return
	}
	src := cl.byID(m.topo.SyncSourceID())
	f := &m.fetch
	if src == nil || cl.now.Before(f.nextAt) || (f.inFlight && cl.now.Sub(f.sentAt) < fetchTimeout) {
		return
	}
	f.inFlight, f.sentAt = true, cl.now
	cl.send(message{kind: msgFetch, from: m.idx, to: src.idx, fetch: fetchRequest{gen: f.gen, last: m.last()}})
}

// serveFetch answers a fetch on the source: its entries from the
// requester's last ts on, as find {ts: {$gte: last.ts}} does.
func (cl *Cluster) serveFetch(src *Member, m message) {
	entries, err := src.cat.Oplog().Read(m.fetch.last.TS, true, cl.opts.FetchBatch+1)
	if err != nil {
		cl.fail(fmt.Errorf("n%d: serve fetch: %w", src.id, err))
		return
	}
	r := fetchReply{entries: entries, top: src.last()}
	cl.send(message{kind: msgFetchReply, from: m.to, to: m.from, toInc: m.fromInc, fetch: m.fetch, reply: r})
}

// onFetchReply checks that the batch continues our oplog (the fetcher's
// checkFirst), rolls back on divergence, then applies the rest.
func (cl *Cluster) onFetchReply(m *Member, msg message) {
	f := &m.fetch
	if msg.fetch.gen != f.gen || m.topo.State() == topology.StatePrimary {
		return
	}
	f.inFlight = false
	last := m.last()
	if msg.fetch.last != last || cl.members[msg.from].id != m.topo.SyncSourceID() {
		return
	}
	batch := msg.reply.entries
	if !last.IsZero() {
		switch {
		case len(batch) == 0:
			f.nextAt = cl.now.Add(idleFetchDelay) // ErrSourceBehind
			return
		case batch[0].OpTime() != last:
			cl.diverged(m, cl.members[msg.from], batch)
			return
		}
		batch = batch[1:]
	}
	if len(batch) == 0 {
		f.nextAt = cl.now.Add(idleFetchDelay)
		return
	}
	cl.apply(m, batch)
	if cl.opts.Bug == BugReportAhead && m.last().Less(msg.reply.top) {
		cl.do(m, m.topo.LocalApplied(cl.now, msg.reply.top))
		cl.reportPosition(m, m.id, msg.reply.top)
	}
}

// apply applies a batch with the real applier.ApplyBatch and reports the
// new position to the topology and upstream.
func (cl *Cluster) apply(m *Member, batch []*oplog.Entry) {
	if _, err := applier.ApplyBatch(m.cat, batch, cl.logger); err != nil {
		cl.fail(fmt.Errorf("n%d: apply: %w", m.id, err))
		return
	}
	op := m.last()
	cl.do(m, m.topo.LocalApplied(cl.now, op))
	cl.do(m, m.topo.LocalDurable(cl.now, op))
	cl.checkConsistent(m)
	cl.reportPosition(m, m.id, op)
}

// checkConsistent leaves RECOVERING (after a rollback) once the member has
// applied through minValid.
func (cl *Cluster) checkConsistent(m *Member) {
	if m.topo.State() != topology.StateRecovering {
		return
	}
	mk, err := markers.Read(m.cat)
	if err != nil {
		cl.fail(err)
		return
	}
	if !m.last().Less(mk.MinValid) {
		cl.do(m, m.topo.SetFollowerState(cl.now, topology.StateSecondary))
	}
}

// reportPosition sends member's position to via's sync source
// (replSetUpdatePosition; a secondary forwards what it receives).
func (cl *Cluster) reportPosition(via *Member, member int, op topology.OpTime) {
	up := cl.byID(via.topo.SyncSourceID())
	if up == nil || via.topo.State() == topology.StatePrimary {
		return
	}
	cl.send(message{kind: msgUpdatePosition, from: via.idx, to: up.idx,
		pos: positionUpdate{member: member, term: via.topo.Term(), op: op}})
}

func (cl *Cluster) onUpdatePosition(m *Member, p positionUpdate) {
	cl.do(m, m.topo.UpdatePosition(cl.now, p.member, p.term, p.op, p.op, p.op))
	cl.reportPosition(m, p.member, p.op)
}
