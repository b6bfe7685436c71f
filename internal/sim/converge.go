package sim

import (
	"bytes"
	"fmt"
	"slices"
	"time"

	"github.com/relaydb/relaydb/internal/repl/topology"
)

// Settle heals the network, turns off drops, restarts dead members and
// runs for d: the quiet period after which CheckConverged must hold.
func (cl *Cluster) Settle(d time.Duration) error {
	cl.sched.opts.DropPct = 0
	for _, m := range cl.members {
		m.fault.armed.Store(false)
	}
	for _, m := range cl.members {
		if !m.alive {
			cl.eventf("restart n%d", m.id)
			if err := cl.start(m); err != nil {
				return err
			}
		}
	}
	cl.heal()
	cl.Run(d)
	return nil
}

// CheckConverged checks that exactly one member is primary and that every
// live member holds the same oplog and the same documents; it also runs
// CheckLogs with documents. It returns the first error or violation.
func (cl *Cluster) CheckConverged() error {
	cl.CheckLogs(true)
	if err := cl.Err(); err != nil {
		return err
	}
	var primaries []int
	for _, m := range cl.members {
		if m.alive && m.view.State == topology.StatePrimary {
			primaries = append(primaries, m.id)
		}
	}
	if len(primaries) != 1 {
		return fmt.Errorf("not converged at %v: primaries %v", cl.Now(), primaries)
	}
	var ref *Member
	var refLog opLog
	var refDocs [][]byte
	for _, m := range cl.members {
		if !m.alive {
			continue
		}
		l, err := readLog(m)
		if err != nil {
			return err
		}
		docs, err := documents(m)
		if err != nil {
			return err
		}
		if ref == nil {
			ref, refLog, refDocs = m, l, docs
			continue
		}
		if ra, rb, ok := aligned(l, refLog); !ok || !slices.Equal(ra, rb) {
			return fmt.Errorf("not converged at %v: n%d's oplog (%d entries, last %s) differs from n%d's (%d, last %s)",
				cl.Now(), m.id, len(l.ops), lastOf(l), ref.id, len(refLog.ops), lastOf(refLog))
		}
		if !slices.EqualFunc(docs, refDocs, bytes.Equal) {
			return fmt.Errorf("not converged at %v: n%d has %d documents, n%d has %d (or they differ)",
				cl.Now(), m.id, len(docs), ref.id, len(refDocs))
		}
	}
	return nil
}

func lastOf(l opLog) topology.OpTime {
	if len(l.ops) == 0 {
		return topology.OpTime{}
	}
	return l.ops[len(l.ops)-1]
}

// documents returns m's documents of DB.Coll in _id order, raw.
func documents(m *Member) ([][]byte, error) {
	coll := m.cat.Collection(DB, Coll)
	if coll == nil {
		return nil, nil
	}
	it := coll.Scan(false)
	defer it.Close()
	var out [][]byte
	for raw, ok := it.Next(); ok; raw, ok = it.Next() {
		out = append(out, append([]byte(nil), raw...))
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("n%d: scan: %w", m.id, err)
	}
	return out, nil
}
