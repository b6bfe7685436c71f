package sim

import (
	"context"
	"fmt"

	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl/markers"
	"github.com/relaydb/relaydb/internal/repl/rollback"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

// diverged handles a batch that does not start with our newest entry: the
// real rollback.Run against the source, then fetching resumes from the
// common point. The injected bugs replace it.
func (cl *Cluster) diverged(m, src *Member, batch []*oplog.Entry) {
	switch cl.opts.Bug {
	case BugIgnoreDivergence:
		cl.applyNewer(m, batch)
		return
	case BugSkipUndo:
		cl.truncateOnly(m, src)
		return
	}
	cl.do(m, m.topo.SetFollowerState(cl.now, topology.StateRollback))
	res, err := rollback.Run(context.Background(), rollback.Options{
		Catalog: m.cat, Source: &source{cat: src.cat}, DBPath: cl.rollbackDir(m), Logger: cl.logger,
	})
	if err != nil {
		cl.fail(fmt.Errorf("n%d: rollback against n%d: %w", m.id, src.id, err))
		return
	}
	cl.stats.rollbacks++
	cl.stats.undone += res.Undone
	cl.eventf("n%d rollback to %s against n%d: %d entries undone", m.id, cl.fmtOp(res.CommonPoint), src.id, res.Undone)
	cl.rolledBack(m, res.CommonPoint)
}

// rolledBack moves the topology's positions back and waits in RECOVERING
// until minValid is reached; the member's pending primary writes past the
// common point are gone.
func (cl *Cluster) rolledBack(m *Member, common topology.OpTime) {
	cl.do(m, m.topo.LocalRolledBack(cl.now, common))
	cl.do(m, m.topo.SetFollowerState(cl.now, topology.StateRecovering))
	m.pending = nil
	m.fetch.nextAt = cl.now
	cl.checkConsistent(m)
}

// applyNewer is BugIgnoreDivergence: keep the diverged tail and apply the
// source's entries with a newer ts on top of it.
func (cl *Cluster) applyNewer(m *Member, batch []*oplog.Entry) {
	top, _ := m.cat.Oplog().Top()
	var newer []*oplog.Entry
	for _, e := range batch {
		if e.TS.After(top) {
			newer = append(newer, e)
		}
	}
	if len(newer) > 0 {
		cl.apply(m, newer)
	}
}

// truncateOnly is BugSkipUndo: find the common point by walking our oplog
// back, truncate to it, leave the documents.
func (cl *Cluster) truncateOnly(m, src *Member) {
	mine, err := m.cat.Oplog().Read(bsonZero, true, 0)
	if err != nil {
		cl.fail(err)
		return
	}
	var common topology.OpTime
	for i := len(mine) - 1; i >= 0; i-- {
		if has, err := hasEntry(src, mine[i].OpTime()); err == nil && has {
			common = mine[i].OpTime()
			break
		}
	}
	if _, err := markers.TruncateOplogAfter(m.cat, common.TS); err != nil {
		cl.fail(err)
		return
	}
	cl.eventf("n%d truncated to %s (bug: no undo)", m.id, cl.fmtOp(common))
	cl.rolledBack(m, common)
}

// hasEntry reports whether m's oplog holds the entry op (ts and term).
func hasEntry(m *Member, op topology.OpTime) (bool, error) {
	es, err := m.cat.Oplog().Read(op.TS, true, 1)
	if err != nil {
		return false, fmt.Errorf("n%d: read oplog: %w", m.id, err)
	}
	return len(es) == 1 && es[0].OpTime() == op, nil
}
