package sim

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/relaydb/relaydb/internal/repl/memnet"
)

// NetOptions shape the network's schedule.
type NetOptions struct {
	MaxDelay time.Duration // each message is delayed uniformly in [0, MaxDelay]
	DropPct  int           // percent of messages lost at random
}

// schedule decides when each memnet message is delivered: the first step
// that sees it draws its delay (or its loss) from the seed; it is
// delivered at the first step at or after its send step + delay. Messages
// sent while delivering wait for the next step, so every exchange takes
// at least one step. A message across a cut link is not refused at once,
// as one to a dead member is: it fails when its sender's timeout expires,
// as a request into a silent partition does.
type schedule struct {
	opts NetOptions
	rng  *rand.Rand
	due  map[uint64]time.Time // Seq -> delivery time
	lost map[uint64]bool
	sent map[uint64]time.Time // Seq -> first seen
}

func newSchedule(opts NetOptions, rng *rand.Rand) *schedule {
	return &schedule{opts: opts, rng: rng, due: map[uint64]time.Time{}, lost: map[uint64]bool{},
		sent: map[uint64]time.Time{}}
}

// deliverDue delivers (or drops) the messages due at now in (due, Seq)
// order.
func (cl *Cluster) deliverDue(now time.Time) {
	s := cl.sched
	type item struct {
		seq uint64
		at  time.Time
	}
	var ready []item
	for _, m := range cl.net.Pending() {
		at, seen := s.due[m.Seq]
		if !seen {
			at = now.Add(time.Duration(s.rng.Int64N(int64(s.opts.MaxDelay) + 1)))
			s.due[m.Seq], s.sent[m.Seq] = at, now
			s.lost[m.Seq] = s.opts.DropPct > 0 && s.rng.IntN(100) < s.opts.DropPct
		}
		if at.After(now) {
			continue
		}
		if cl.silent(m) && !s.lost[m.Seq] { // into a partition: fails at its timeout
			s.lost[m.Seq] = true
			if timeout := s.sent[m.Seq].Add(m.Timeout); timeout.After(now) {
				s.due[m.Seq] = timeout
				continue
			}
		}
		ready = append(ready, item{m.Seq, at})
	}
	slices.SortFunc(ready, func(a, b item) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return int(a.seq) - int(b.seq)
	})
	for _, it := range ready {
		if s.lost[it.seq] {
			cl.net.DropSeq(it.seq)
		} else {
			cl.net.DeliverSeq(it.seq)
		}
		delete(s.due, it.seq)
		delete(s.lost, it.seq)
		delete(s.sent, it.seq)
	}
}

// silent: m crosses a cut link between live members (not refused by a
// dead one).
func (cl *Cluster) silent(m *memnet.Message) bool {
	return !cl.net.Reachable(m.From, m.To) && !cl.net.Isolated(m.From) && !cl.net.Isolated(m.To)
}

// partition cuts every link between members of different groups.
func (cl *Cluster) partition(groups [][]*Member) {
	for gi, g := range groups {
		for gj, h := range groups {
			if gi != gj {
				for _, a := range g {
					for _, b := range h {
						cl.net.Partition(a.host, b.host, true)
						cl.cut = true
					}
				}
			}
		}
	}
}

// heal restores every link; dead members stay cut off.
func (cl *Cluster) heal() {
	cl.net.HealAll()
	cl.cut = false
	for _, m := range cl.members {
		if !m.alive {
			cl.net.Isolate(m.host, true)
		}
	}
}
