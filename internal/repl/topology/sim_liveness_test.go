package topology

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Liveness bounds of the simulation: after the chaos stops and the network
// heals, a writable primary must appear within settleLimit; after the last
// write no live member behind the primary may go stallLimit without
// applying anything, and all must hold the last write within catchUpLimit
// (replication throughput is bounded, so a member that was down catches up
// gradually). stallLimit is ten heartbeat intervals: with 5% of messages
// still dropped, a member now and then misses three heartbeats in a row,
// counts the primary down and sits out an election timeout.
const (
	settleLimit  = 20 * time.Second
	stallLimit   = 5 * time.Second
	catchUpLimit = 60 * time.Second
)

// checkCatchUp heals the network, restarts dead members if too few voters
// live for a primary, waits for a writable primary, makes one last write
// and checks that every live member applies through the primary's last
// OpTime without stalling, with no further writes.
func checkCatchUp(t *testing.T, cl *cluster, seed uint64) {
	t.Helper()
	cl.cut = map[[2]int]bool{}
	if liveVoters(cl) < cl.cfg.MajorityVoteCount() {
		for _, nd := range cl.nodes {
			if !nd.alive {
				cl.start(nd)
			}
		}
	}
	if waitWritable(cl, settleLimit) == nil {
		t.Fatalf("seed %d: no writable primary %v after healing:\n%s", seed, settleLimit, simStatus(cl))
	}
	cl.write(writablePrimary(cl))
	progress := make([]time.Time, len(cl.nodes))
	lens := make([]int, len(cl.nodes))
	for start := cl.now; !caughtUp(cl); cl.step(10 * time.Millisecond) {
		if cl.now.Sub(start) > catchUpLimit {
			t.Fatalf("seed %d: members not caught up %v after the last write:\n%s", seed, catchUpLimit, simStatus(cl))
		}
		p := writablePrimary(cl)
		for i, nd := range cl.nodes {
			if nd.applied != lens[i] || p == nil || nd.appliedOp() == p.last() || progress[i].IsZero() {
				lens[i], progress[i] = nd.applied, cl.now
			}
			if nd.alive && cl.now.Sub(progress[i]) > stallLimit {
				t.Fatalf("seed %d: n%d applied nothing for %v while behind the primary:\n%s",
					seed, cl.id(i), stallLimit, simStatus(cl))
			}
		}
	}
}

func liveVoters(cl *cluster) int {
	n := 0
	for _, nd := range cl.nodes {
		if nd.alive && cl.cfg.Members[nd.idx].Voter() {
			n++
		}
	}
	return n
}

func waitWritable(cl *cluster, d time.Duration) *node {
	for end := cl.now.Add(d); cl.now.Before(end); cl.step(10 * time.Millisecond) {
		if p := writablePrimary(cl); p != nil {
			return p
		}
	}
	return nil
}

// writablePrimary returns the live writable primary of the highest term,
// or nil.
func writablePrimary(cl *cluster) *node {
	var p *node
	for _, nd := range cl.nodes {
		if nd.alive && nd.c.Writable() && (p == nil || nd.c.Term() > p.c.Term()) {
			p = nd
		}
	}
	return p
}

// caughtUp reports whether there is a writable primary and every live
// member has applied through the primary's last entry.
func caughtUp(cl *cluster) bool {
	p := writablePrimary(cl)
	if p == nil {
		return false
	}
	for _, nd := range cl.nodes {
		if nd.alive && nd.appliedOp() != p.last() {
			return false
		}
	}
	return true
}

func simStatus(cl *cluster) string {
	var b strings.Builder
	for _, nd := range cl.nodes {
		if !nd.alive {
			fmt.Fprintf(&b, "  n%d dead last=%s len=%d\n", cl.id(nd.idx), nd.last(), len(nd.oplog))
			continue
		}
		c := nd.c
		fmt.Fprintf(&b, "  n%d %s term=%d primary=%s source=%s applied=%s fetched=%d/%d\n", cl.id(nd.idx), c.State(),
			c.Term(), idStr(c.PrimaryID()), idStr(c.SyncSourceID()), nd.appliedOp(), nd.applied, len(nd.oplog))
	}
	return b.String()
}
