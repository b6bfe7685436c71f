package topology

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// cluster runs N Coordinators against a fake network, a manual clock and a
// model oplog per member. With net == nil messages are delivered at once
// (scripts); otherwise they are delayed and dropped at random (simulation).
type cluster struct {
	cfg       Config
	t0, now   time.Time
	nodes     []*node
	pos       []float64 // RTT = 0.2ms + |pos a - pos b| ms
	cut       map[[2]int]bool
	replicate bool
	log       []string
	net       *simNet
	onAction  func(n *node, a Action)
}

type node struct {
	idx      int
	c        *Coordinator
	alive    bool
	oplog    []OpTime // model oplog (fetched or written); durable at once
	applied  int      // oplog[:applied] is applied and reported to c
	term     int64
	lastVote PersistVote
	rng      *rand.Rand
}

func newCluster(cfg Config, seed uint64) *cluster {
	cl := &cluster{cfg: cfg, t0: time.Unix(100, 0), cut: map[[2]int]bool{}, replicate: true}
	cl.now = cl.t0
	cl.pos = make([]float64, len(cfg.Members))
	for i := range cfg.Members {
		n := &node{idx: i, alive: true, rng: rand.New(rand.NewPCG(seed, uint64(i)))}
		cl.nodes = append(cl.nodes, n)
	}
	for _, n := range cl.nodes {
		cl.start(n)
	}
	return cl
}

func (cl *cluster) start(n *node) {
	n.alive, n.applied = true, len(n.oplog) // recovery applies the whole oplog
	n.c = New(Options{
		Config: cl.cfg, SelfHost: cl.cfg.Members[n.idx].Host, Now: cl.now, Rand: n.rng,
		Term: n.term, LastVote: n.lastVote, Applied: n.last(),
	})
}

func (n *node) last() OpTime {
	if len(n.oplog) == 0 {
		return OpTime{}
	}
	return n.oplog[len(n.oplog)-1]
}

func (cl *cluster) id(i int) int { return cl.cfg.Members[i].ID }

func (cl *cluster) byID(id int) *node {
	if i := cl.cfg.MemberIndex(id); i >= 0 {
		return cl.nodes[i]
	}
	return nil
}

func (cl *cluster) linked(a, b int) bool {
	return cl.nodes[a].alive && cl.nodes[b].alive && !cl.cut[[2]int{a, b}]
}

func (cl *cluster) rtt(a, b int) time.Duration {
	d := cl.pos[a] - cl.pos[b]
	if d < 0 {
		d = -d
	}
	return 200*time.Microsecond + time.Duration(d*float64(time.Millisecond))
}

func (cl *cluster) logf(format string, args ...any) {
	at := cl.now.Sub(cl.t0)
	cl.log = append(cl.log, fmt.Sprintf("%6.3fs ", at.Seconds())+fmt.Sprintf(format, args...))
}

// apply carries out a node's actions.
func (cl *cluster) apply(n *node, acts []Action) {
	for _, a := range acts {
		if cl.onAction != nil {
			cl.onAction(n, a)
		}
		cl.apply1(n, a)
	}
}

func (cl *cluster) apply1(n *node, a Action) {
	me := cl.id(n.idx)
	switch a := a.(type) {
	case SendHeartbeats:
		for _, to := range a.Targets {
			cl.send(message{kind: msgHeartbeat, from: n.idx, to: cl.cfg.MemberIndex(to)})
		}
	case SendVoteRequests:
		if cl.net == nil {
			kind := "election"
			if a.DryRun {
				kind = "dry-run"
			}
			cl.logf("n%d %s term=%d applied=%s", me, kind, a.Term, a.LastApplied)
		}
		req := n.c.VoteRequestFor(a)
		for _, to := range a.Targets {
			cl.send(message{kind: msgVoteRequest, from: n.idx, to: cl.cfg.MemberIndex(to), req: req})
		}
	case PersistVote:
		n.term, n.lastVote = a.Term, a
	case BecomePrimary:
		cl.logf("n%d %s", me, a)
		cl.write(n)
	case CommitPointAdvanced:
		if n.c.State() == StatePrimary && cl.net == nil {
			cl.logf("n%d %s", me, a)
		}
	case StateChanged:
		if a.To != StatePrimary && a.From != StatePrimary {
			cl.logf("n%d %s", me, a)
		}
	default:
		cl.logf("n%d %s", me, a)
	}
}

// write appends one entry to a writable primary's oplog.
func (cl *cluster) write(n *node) {
	if !n.alive || !n.c.Writable() {
		return
	}
	ts := bson.Timestamp{T: uint32(cl.now.Unix()), I: 1}
	if l := n.last(); l.TS.T >= ts.T {
		ts = bson.Timestamp{T: l.TS.T, I: l.TS.I + 1}
	}
	op := OpTime{TS: ts, Term: n.c.Term()}
	n.oplog, n.applied = append(n.oplog, op), len(n.oplog)+1
	cl.apply(n, n.c.LocalWrite(cl.now, op))
	cl.apply(n, n.c.LocalDurable(cl.now, op))
}

// step advances the clock by dt: delivers due messages, ticks every live
// node, and lets secondaries pull from their sync sources.
func (cl *cluster) step(dt time.Duration) {
	cl.now = cl.now.Add(dt)
	if cl.net != nil {
		cl.net.deliverDue(cl)
	}
	for _, n := range cl.nodes {
		if n.alive {
			cl.apply(n, n.c.Tick(cl.now))
		}
	}
	if cl.replicate {
		for _, n := range cl.nodes {
			cl.pull(n)
		}
		for _, n := range cl.nodes {
			cl.applyFetched(n)
		}
	}
}

// applyFetched applies fetched entries: all at once in scripts; in the
// simulation in applyPct% of steps, at most applyBatch at a time, so a
// member's oplog runs ahead of the position it reports.
func (cl *cluster) applyFetched(n *node) {
	if !n.alive || n.applied >= len(n.oplog) {
		return
	}
	k := len(n.oplog)
	if cl.net != nil && cl.net.applyBatch > 0 {
		if cl.net.rng.IntN(100) >= cl.net.applyPct {
			return
		}
		k = min(k, n.applied+cl.net.applyBatch)
	}
	n.applied = k
	op := n.oplog[k-1]
	cl.apply(n, n.c.LocalApplied(cl.now, op))
	cl.apply(n, n.c.LocalDurable(cl.now, op))
	cl.reportUp(n, n.idx, op)
}

// appliedOp returns the last applied entry.
func (n *node) appliedOp() OpTime {
	if n.applied == 0 {
		return OpTime{}
	}
	return n.oplog[n.applied-1]
}

// pull copies the sync source's oplog past the common point, rolling back
// a diverged tail first, and reports positions upstream.
func (cl *cluster) pull(n *node) {
	src := cl.byID(n.c.SyncSourceID())
	if !n.alive || src == nil || !cl.linked(n.idx, src.idx) || n.c.Writable() {
		return
	}
	if cl.net != nil && cl.net.rng.IntN(100) >= cl.net.pullPct {
		return // this fetcher's batch is not back yet
	}
	common := commonPrefix(n.oplog, src.oplog)
	if common == len(src.oplog) {
		return // the source is behind or level: nothing to fetch
	}
	if common < len(n.oplog) { // diverged: roll back to the common point
		n.oplog, n.applied = slices.Clone(n.oplog[:common]), min(n.applied, common)
		cl.apply(n, n.c.LocalRolledBack(cl.now, n.appliedOp()))
	}
	end := len(src.oplog)
	if cl.net != nil && cl.net.batch > 0 {
		end = min(end, len(n.oplog)+cl.net.batch)
	}
	n.oplog = append(n.oplog, src.oplog[len(n.oplog):end]...)
}

// reportUp sends member from's position along the sync-source chain, as
// replSetUpdatePosition and its forwarding do.
func (cl *cluster) reportUp(via *node, from int, op OpTime) {
	for hops := 0; hops < len(cl.nodes); hops++ {
		up := cl.byID(via.c.SyncSourceID())
		if up == nil || !cl.linked(via.idx, up.idx) {
			return
		}
		cl.apply(up, up.c.UpdatePosition(cl.now, cl.id(from), via.c.Term(), op, op, op))
		via = up
	}
}

func commonPrefix(a, b []OpTime) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

func (cl *cluster) run(d, dt time.Duration) {
	for end := cl.now.Add(d); cl.now.Before(end); {
		cl.step(dt)
	}
}

func (cl *cluster) takeLog() string {
	s := strings.Join(cl.log, "\n")
	cl.log = nil
	return s
}

type msgKind int

const (
	msgHeartbeat msgKind = iota
	msgHeartbeatReply
	msgVoteRequest
	msgVoteReply
)

type message struct {
	kind     msgKind
	from, to int
	at       time.Time
	req      VoteRequest
	hb       HeartbeatReply
	vote     VoteReply
}

func (cl *cluster) send(m message) {
	if m.to < 0 {
		return
	}
	if cl.net != nil {
		cl.net.enqueue(cl, m)
		return
	}
	cl.deliver(m)
}

// deliver hands m to its receiver; a heartbeat to an unreachable member
// fails at once (the I/O layer's retries are not modelled).
func (cl *cluster) deliver(m message) {
	from, to := cl.nodes[m.from], cl.nodes[m.to]
	if !cl.linked(m.from, m.to) {
		if m.kind == msgHeartbeat && from.alive && cl.net == nil {
			cl.apply(from, from.c.HeartbeatFailed(cl.now, cl.id(m.to)))
		}
		return
	}
	switch m.kind {
	case msgHeartbeat:
		r := to.c.Heartbeat()
		r.RTT = cl.rtt(m.from, m.to)
		cl.send(message{kind: msgHeartbeatReply, from: m.to, to: m.from, hb: r})
	case msgHeartbeatReply:
		cl.apply(to, to.c.HeartbeatResponse(cl.now, m.hb))
	case msgVoteRequest:
		r, acts := to.c.VoteRequest(cl.now, m.req)
		cl.apply(to, acts)
		cl.send(message{kind: msgVoteReply, from: m.to, to: m.from, req: m.req, vote: r})
	case msgVoteReply:
		cl.apply(to, to.c.VoteResponse(cl.now, cl.id(m.from), m.req.DryRun, m.req.Term, m.vote))
	}
}

// simNet delays messages at random and drops some; it also slows
// replication: a pull happens in pullPct% of steps and copies at most
// batch entries (0: all), and fetched entries are applied in applyPct% of
// steps, at most applyBatch at a time (0: at once), so members lag their
// sources by varying amounts and fetch ahead of what they report.
type simNet struct {
	rng        *rand.Rand
	maxDelay   time.Duration
	dropPct    int
	pullPct    int
	batch      int
	applyPct   int
	applyBatch int
	queue      []message
}

func (s *simNet) enqueue(cl *cluster, m message) {
	if s.rng.IntN(100) < s.dropPct {
		return
	}
	m.at = cl.now.Add(time.Duration(s.rng.Int64N(int64(s.maxDelay) + 1)))
	s.queue = append(s.queue, m)
}

func (s *simNet) deliverDue(cl *cluster) {
	var due, later []message
	for _, m := range s.queue {
		if m.at.After(cl.now) {
			later = append(later, m)
		} else {
			due = append(due, m)
		}
	}
	s.queue = later
	for _, m := range due {
		cl.deliver(m)
	}
}
