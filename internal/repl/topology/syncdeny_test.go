package topology

import (
	"fmt"
	"testing"
	"time"
)

// TestSourceBehindDenylists: a member whose fetcher finds its source
// behind it leaves that source at once and does not pick it again for
// SourceBehindDeny, even when it is the closest candidate and its chain
// reaches the primary (issue #14: a secondary kept retrying a lagging
// former primary for 16 s after a step-down).
func TestSourceBehindDenylists(t *testing.T) {
	cfg := NewConfig("rs0")
	for i := range 3 {
		cfg.Members = append(cfg.Members, NewMember(i, fmt.Sprintf("n%d", i)))
	}
	cl := newCluster(cfg, 1)
	cl.run(5*time.Second, 10*time.Millisecond)
	var p *node
	var secs []*node
	for _, n := range cl.nodes {
		if n.c.Writable() {
			p = n
		} else {
			secs = append(secs, n)
		}
	}
	if p == nil || len(secs) != 2 {
		t.Fatalf("no primary after 5 s")
	}
	near, me := secs[0], secs[1]
	cl.pos[p.idx], cl.pos[near.idx], cl.pos[me.idx] = 0, 20, 20.1 // near is by far the closest
	steady := func(d time.Duration) {
		for end := cl.now.Add(d); cl.now.Before(end); {
			cl.write(p)
			cl.step(10 * time.Millisecond)
		}
	}
	steady(2 * time.Second)
	if _, acts, err := me.c.SyncFromRequest(cl.now, near.c.cfg.Members[near.idx].Host); err != nil {
		t.Fatalf("replSetSyncFrom: %v", err)
	} else {
		cl.apply(me, acts)
	}
	if got := me.c.SyncSourceID(); got != cl.id(near.idx) {
		t.Fatalf("source after replSetSyncFrom = %d, want %d", got, cl.id(near.idx))
	}
	cl.apply(me, me.c.SourceBehind(cl.now, cfg.Members[near.idx].Host))
	if got := me.c.SyncSourceID(); got == cl.id(near.idx) {
		t.Fatalf("kept the source the fetcher found behind")
	}
	steady(500 * time.Millisecond)
	if got := me.c.SyncSourceID(); got != cl.id(p.idx) {
		t.Fatalf("source after the fetcher found %d behind = %d, want the primary %d", cl.id(near.idx), got, cl.id(p.idx))
	}
	steady(SourceBehindDeny - 2*time.Second)
	if got := me.c.SyncSourceID(); got == cl.id(near.idx) {
		t.Fatalf("the denylisted source came back within %v", SourceBehindDeny)
	}
	// The primary itself is never denylisted: it is every chain's root.
	cl.apply(me, me.c.SourceBehind(cl.now, cfg.Members[p.idx].Host))
	if got := me.c.SyncSourceID(); got != cl.id(p.idx) {
		t.Fatalf("the primary was dropped as a source: now %d", got)
	}
	steady(5 * time.Second)
	if me.c.isDenied(near.idx) {
		t.Fatalf("still denylisted after %v", SourceBehindDeny)
	}
}
