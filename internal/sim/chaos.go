package sim

import (
	"fmt"
	"time"
)

// Chaos runs a seeded random schedule for d: bursts of writes on whichever
// members accept them (stale primaries included), kills, restarts,
// partitions into two random groups, and heals. It stops early at the
// first failure (see Err).
func (cl *Cluster) Chaos(d time.Duration) error {
	for end := cl.now.Add(d); cl.now.Before(end) && cl.Err() == nil; {
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
	case r < 20:
		if len(cl.net.cut) > 0 {
			cl.eventf("heal")
		}
		cl.net.heal()
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
	var rest []int
	for i := range cl.members {
		if i != p {
			rest = append(rest, i)
		}
	}
	cl.net.heal()
	cl.net.partition([][]int{{p}, rest})
	cl.eventf("isolate n%d", cl.members[p].id)
}

// randomPartition splits the members into two random groups.
func (cl *Cluster) randomPartition() {
	var a, b []int
	for i := range cl.members {
		if cl.rng.IntN(2) == 0 {
			a = append(a, i)
		} else {
			b = append(b, i)
		}
	}
	cl.net.heal()
	cl.net.partition([][]int{a, b})
	cl.eventf("partition %v / %v", a, b)
}

// Report summarizes a run: elections, committed writes, the clock.
func (cl *Cluster) Report() string {
	return fmt.Sprintf("%v simulated, %d terms won, %d writes majority-committed, %d rollbacks (%d entries undone)",
		cl.Now(), cl.Elections(), cl.Committed(), cl.stats.rollbacks, cl.stats.undone)
}
