package sim

import (
	"fmt"
	"strings"

	"github.com/relaydb/relaydb/internal/repl/topology"
)

// Reconfig installs cfg (its version is bumped) on the cluster and on every
// live member at once.
// TODO(#2): propagate configs through heartbeats, as the real set does.
func (cl *Cluster) Reconfig(cfg topology.Config) error {
	cfg.Version = cl.cfg.Version + 1
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("sim: reconfig: %w", err)
	}
	cl.cfg = cfg
	for _, m := range cl.members {
		if m.alive {
			cl.do(m, m.topo.ConfigChanged(cl.now, cfg))
		}
	}
	cl.eventf("reconfig version=%d members=%d", cfg.Version, len(cfg.Members))
	return nil
}

// AddMember adds a new, empty member (non-voting past the seventh voter);
// it replicates the whole oplog from its sync source.
func (cl *Cluster) AddMember() error {
	cfg := cl.cfg
	cfg.Members = append([]topology.MemberConfig(nil), cfg.Members...)
	id := 0
	for _, m := range cfg.Members {
		id = max(id, m.ID+1)
	}
	mc := topology.NewMember(id, fmt.Sprintf("n%d", id))
	if cfg.Voters() >= topology.MaxVotingMembers {
		mc.Votes, mc.Priority = 0, 0
	}
	cfg.Members = append(cfg.Members, mc)
	if err := cl.Reconfig(cfg); err != nil {
		return err
	}
	return cl.addMember(len(cfg.Members) - 1)
}

// Status prints one line per member: state, term, last OpTime, commit
// point, sync source, oplog length and document count. OpTimes print
// seconds since the start.
func (cl *Cluster) Status() string {
	var b strings.Builder
	for _, m := range cl.members {
		if !m.alive {
			fmt.Fprintf(&b, "n%d DOWN\n", m.id)
			continue
		}
		l, err := readLog(m)
		if err != nil {
			cl.fail(err)
			return ""
		}
		docs, err := documents(m)
		if err != nil {
			cl.fail(err)
			return ""
		}
		src := "-"
		if id := m.topo.SyncSourceID(); id >= 0 {
			src = fmt.Sprintf("n%d", id)
		}
		fmt.Fprintf(&b, "n%d %s term=%d last=%s commit=%s src=%s oplog=%d docs=%d\n",
			m.id, m.topo.State(), m.topo.Term(), cl.fmtOp(m.last()), cl.fmtOp(m.topo.CommitPoint()),
			src, len(l.ops), len(docs))
	}
	return strings.TrimRight(b.String(), "\n")
}

func (cl *Cluster) fmtOp(op topology.OpTime) string {
	if op.IsZero() {
		return "0"
	}
	return fmt.Sprintf("%d:%d@%d", int64(op.TS.T)-cl.t0.Unix(), op.TS.I, op.Term)
}
