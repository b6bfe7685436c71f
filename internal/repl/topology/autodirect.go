package topology

import (
	"slices"
	"time"
)

// Demand-driven direct readers (chainingMode "auto").
//
// The primary decides who pulls from it directly from the acknowledgements
// its writers wait for: with no waiter needing more than its own write
// (w:1), one voter pulls from the primary and every other member chains
// below it, as chaining "on" does, so the primary serves one stream; when
// writers wait for secondary acknowledgements (w:"majority", w:N), every
// voter that may be listed pulls directly, as with chaining "off" (an
// acknowledgement is the k-th fastest of them, and a voter one hop down
// adds a hop's delay to it), and so does one non-voter, the feeder: the
// other non-voters chain below it (and below each other), so no voter
// spends its time forwarding to members whose acknowledgements nobody
// waits for (at 15 members, voters that also fed the 8 non-voters
// acknowledged late enough to cost 16-21 % against chaining "off",
// bench/results/README.md). Earlier
// versions listed exactly k voters, then k plus a spare; with streaming and
// the oplog tail cache a direct reader costs the primary little, and the
// chaining matrices of 2026-11-28 (bench/results/README.md) had chaining
// off 8-21 % ahead of k direct readers in every w:"majority" row.
// The primary publishes the list of _ids in its heartbeat replies and, when it changes, in heartbeat requests it
// sends at once; members follow the list of the primary they currently
// know and keep pulling from the primary when they have none (a new
// primary, or one of an older relaydb).
//
// Invariant: the list only names members that were up, SECONDARY,
// data-bearing and undelayed when the primary computed it, all of them
// voters but at most one visible non-voter (the feeder, listed only under
// write-concern demand), and it is stable while its members stay so
// (members leave it only when demand shrinks or they fail; see
// chooseDirect).

const (
	// demandBucket is the width of the windows waits are counted in; demand
	// is what the current and the previous window show.
	demandBucket = 500 * time.Millisecond
	// demandMinWaits waits needing k acknowledgements within the two
	// windows make a demand for k (a lone w:"majority" drop or create does
	// not reshape the set).
	demandMinWaits = 4
	// demandHold is how long a demand outlives the last window showing it.
	demandHold = 2 * time.Second
)

// ackDemand counts write-concern waits by the secondary acknowledgements
// they need, in two adjacent windows, and holds the last level it saw for
// demandHold: the primary widens its direct set at once and narrows it
// only after writers have stopped waiting for a while.
type ackDemand struct {
	start     time.Time
	cur, prev []int // index: acknowledgements needed; value: waits
	held      int
	heldUntil time.Time
}

func (d *ackDemand) roll(now time.Time) {
	switch {
	case now.Sub(d.start) >= 2*demandBucket:
		d.prev, d.cur, d.start = nil, nil, now
	case now.Sub(d.start) >= demandBucket:
		d.prev, d.cur, d.start = d.cur, nil, d.start.Add(demandBucket)
	}
}

func (d *ackDemand) note(now time.Time, acks int) {
	d.roll(now)
	if len(d.cur) <= acks {
		d.cur = append(d.cur, make([]int, acks+1-len(d.cur))...)
	}
	d.cur[acks]++
}

// acks returns the largest k such that at least demandMinWaits waits in the
// two windows needed k or more acknowledgements, or the level held from
// the last demandHold; 0 when none.
func (d *ackDemand) acks(now time.Time) int {
	d.roll(now)
	level := 0
	total := 0
	for k := max(len(d.cur), len(d.prev)) - 1; k > 0; k-- {
		total += at(d.cur, k) + at(d.prev, k)
		if total >= demandMinWaits {
			level = k
			break
		}
	}
	if level > 0 && level >= d.held {
		d.held, d.heldUntil = level, now.Add(demandHold)
	}
	if now.Before(d.heldUntil) {
		return max(level, d.held)
	}
	d.held = level
	return level
}

func at(s []int, i int) int {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// NoteWriteConcernWait records, on the primary, that a writer waits for w:
// the demand the direct-reader list follows. It may change the list and
// then returns the heartbeats that announce it.
func (c *Coordinator) NoteWriteConcernWait(now time.Time, w any) []Action {
	if c.state != StatePrimary || c.cfg.Settings.ChainingMode != "auto" {
		return nil
	}
	if acks := c.acksNeeded(w); acks > 0 {
		c.demand.note(now, acks)
	}
	if want, _ := c.wantDirect(now); want == c.listedVoters() {
		return nil // Tick rechecks membership; writes stay cheap
	}
	return c.updateDirect(now, nil)
}

// wantDirect is how many voters the demand asks to read directly: one
// when no writer waits for acknowledgements, every candidate (at least
// the acknowledgements waited for) when some do (demand; a feeder joins
// them then).
func (c *Coordinator) wantDirect(now time.Time) (want int, demand bool) {
	k := c.demand.acks(now)
	if k == 0 {
		return 1, false
	}
	n := 0
	for i := range c.members {
		if c.directCandidate(i) {
			n++
		}
	}
	return max(k, n), true
}

// acksNeeded is how many members besides the primary w waits for.
func (c *Coordinator) acksNeeded(w any) int {
	switch v := w.(type) {
	case int:
		return v - 1
	case int32:
		return int(v) - 1
	case int64:
		return int(v) - 1
	case float64:
		return int(v) - 1
	}
	return c.cfg.WriteMajority() - 1 // "majority", tag modes, tag maps
}

// updateDirect recomputes the primary's direct-reader list; when it changes
// the primary heartbeats every member at once to announce it.
func (c *Coordinator) updateDirect(now time.Time, acts []Action) []Action {
	var next []int
	if c.state == StatePrimary && c.cfg.Settings.ChainingMode == "auto" {
		want, demand := c.wantDirect(now)
		if next = c.chooseDirect(want); demand {
			next = c.withFeeder(next)
		}
	}
	if slices.Equal(next, c.direct) {
		return acts
	}
	c.direct = next
	if next == nil {
		return acts
	}
	c.heartbeatAt = now.Add(c.cfg.HeartbeatInterval())
	return append(acts, SendHeartbeats{Targets: c.others()})
}

// directCandidate: member i may be named a direct reader.
func (c *Coordinator) directCandidate(i int) bool {
	m := c.members[i]
	return i != c.self && m.up && m.state == StateSecondary && m.cfg.Voter() &&
		m.cfg.DataBearing() && m.cfg.SecondaryDelaySecs == 0
}

// chooseDirect keeps the current list's visible members that are still
// candidates (up to want, the closest when the list narrows: with zones,
// keeping the lowest _id left the one w:1 reader in a far zone and the
// whole tree behind a long link), then fills it with the other candidates:
// visible members before hidden ones (only visible members can serve
// others, so a hidden member listed while no visible one was up gives way
// to one), listed hidden members before unlisted ones, closest first,
// lower _id on ties. The result is sorted by _id.
func (c *Coordinator) chooseDirect(want int) []int {
	var keep []int
	for _, id := range c.direct {
		if i := c.cfg.MemberIndex(id); i >= 0 && c.directCandidate(i) && !c.members[i].cfg.Hidden {
			keep = append(keep, i)
		}
	}
	slices.SortStableFunc(keep, c.directOrder)
	var out []int
	for _, i := range keep[:min(len(keep), want)] {
		out = append(out, c.members[i].cfg.ID)
	}
	var cands []int
	for i := range c.members {
		if c.directCandidate(i) && !slices.Contains(out, c.members[i].cfg.ID) {
			cands = append(cands, i)
		}
	}
	slices.SortStableFunc(cands, c.directOrder)
	for _, i := range cands {
		if len(out) >= want {
			break
		}
		out = append(out, c.members[i].cfg.ID)
	}
	slices.Sort(out)
	if out == nil {
		out = []int{} // published as empty: nobody is asked to pull directly yet
	}
	return out
}

// directOrder orders direct-reader candidates: visible first, then those
// already listed, then by distance and _id.
func (c *Coordinator) directOrder(a, b int) int {
	ma, mb := c.members[a], c.members[b]
	la, lb := slices.Contains(c.direct, ma.cfg.ID), slices.Contains(c.direct, mb.cfg.ID)
	switch {
	case ma.cfg.Hidden != mb.cfg.Hidden:
		if ma.cfg.Hidden {
			return 1
		}
		return -1
	case la != lb:
		if la {
			return -1
		}
		return 1
	case ma.rtt != mb.rtt:
		return int(ma.rtt - mb.rtt)
	}
	return ma.cfg.ID - mb.cfg.ID
}

// DirectReaders is the list this member publishes as primary in mode
// "auto", nil otherwise.
func (c *Coordinator) DirectReaders() []int {
	if c.state != StatePrimary {
		return nil
	}
	return c.direct
}

// LearnDirectReaders records the direct-reader list member from announced
// (in a heartbeat reply or request); it guides this member while from is
// the primary it knows.
func (c *Coordinator) LearnDirectReaders(now time.Time, from int, ids []int) []Action {
	i := c.cfg.MemberIndex(from)
	if i < 0 || i == c.self || c.self < 0 {
		return nil
	}
	c.directFrom, c.primaryDirect = i, slices.Clone(ids)
	return c.checkSyncSource(now, nil)
}

// directListed reports whether the primary we know published a list and
// whether it names us.
func (c *Coordinator) directListed() (known, listed bool) {
	if c.primary < 0 || c.directFrom != c.primary || c.primaryDirect == nil {
		return false, false
	}
	return true, slices.Contains(c.primaryDirect, c.SelfID())
}
