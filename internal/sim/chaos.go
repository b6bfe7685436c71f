package sim

import (
	"fmt"
	"time"
)

// Chaos runs a seeded random schedule for d: bursts of writes on whichever
// members accept them (stale primaries included), kills, power failures
// (only what was synced survives), disk faults (a WAL write fails: the
// member stops), restarts, partitions into two random groups, and heals. It stops early at the
// first failure (see Err).
func (cl *Cluster) Chaos(d time.Duration) error {
	for end := cl.clk.Now().Add(d); cl.clk.Now().Before(end) && cl.Err() == nil; {
		cl.Step()
		if err := cl.chaosStep(); err != nil {
			return err
		}
	}
	return cl.Err()
}

func (cl *Cluster) chaosStep() error {
	if cl.rng.IntN(5) == 0 {
		idx := cl.Primary()
		if idx < 0 || cl.rng.IntN(4) == 0 {
			idx = cl.rng.IntN(len(cl.members)) // maybe a stale primary
		}
		if _, err := cl.Write(idx, 1+cl.rng.IntN(5)); err != nil {
			return err
		}
	}
	switch r := cl.rng.IntN(1000); {
	case r < 2:
		cl.isolatePrimary()
	case r < 5:
		m := cl.members[cl.rng.IntN(len(cl.members))]
		cl.eventf("kill n%d", m.id)
		return cl.kill(m)
	case r < 12:
		if m := cl.members[cl.rng.IntN(len(cl.members))]; !m.alive {
			cl.eventf("restart n%d", m.id)
			return cl.start(m)
		}
	case r < 15:
		cl.randomPartition()
	case r < 17:
		m := cl.members[cl.rng.IntN(len(cl.members))]
		if m.alive {
			cl.eventf("power failure n%d", m.id)
			return cl.powerFail(m)
		}
	case r < 19:
		cl.ArmDiskFault(cl.rng.IntN(len(cl.members)))
	case r < 23:
		if cl.cut {
			cl.eventf("heal")
		}
		cl.heal()
	}
	return nil
}

// isolatePrimary cuts the primary off from every other member: it keeps
// taking writes until it steps down, and they must be rolled back.
func (cl *Cluster) isolatePrimary() {
	p := cl.Primary()
	if p < 0 {
		return
	}
	var rest []*Member
	for i, m := range cl.members {
		if i != p {
			rest = append(rest, m)
		}
	}
	cl.heal()
	cl.partition([][]*Member{{cl.members[p]}, rest})
	cl.eventf("isolate n%d", cl.members[p].id)
}

// randomPartition splits the members into two random groups.
func (cl *Cluster) randomPartition() {
	var a, b []*Member
	for _, m := range cl.members {
		if cl.rng.IntN(2) == 0 {
			a = append(a, m)
		} else {
			b = append(b, m)
		}
	}
	cl.heal()
	cl.partition([][]*Member{a, b})
	cl.eventf("partition %s / %s", ids(a), ids(b))
}

// Report summarizes a run: elections, committed writes, the clock.
func (cl *Cluster) Report() string {
	return fmt.Sprintf("%v simulated, %d terms won, %d writes majority-committed, %d rollbacks (%d entries undone)",
		cl.Now(), cl.Elections(), cl.Committed(), cl.stats.rollbacks, cl.stats.undone)
}

func ids(ms []*Member) string {
	s := ""
	for i, m := range ms {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprintf("n%d", m.id)
	}
	return "[" + s + "]"
}
