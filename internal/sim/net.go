package sim

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

// NetOptions shape the fake network.
type NetOptions struct {
	MaxDelay time.Duration // each message is delayed uniformly in [0, MaxDelay]
	DropPct  int           // percent of messages lost at random
}

type msgKind int

const (
	msgHeartbeat msgKind = iota
	msgHeartbeatReply
	msgVoteRequest
	msgVoteReply
	msgFetch
	msgFetchReply
	msgUpdatePosition
)

// message is one request or reply in flight. Replies carry the incarnation
// of the member that asked, so a restarted member ignores old answers.
type message struct {
	kind     msgKind
	from, to int // member indexes
	fromInc  int // the sender's incarnation when sent
	toInc    int // for a reply: the incarnation that asked (0: any)
	at       time.Time
	seq      uint64
	req      topology.VoteRequest
	vote     topology.VoteReply
	hb       topology.HeartbeatReply
	fetch    fetchRequest
	reply    fetchReply
	pos      positionUpdate
}

type positionUpdate struct {
	member int // _id whose position this is
	term   int64
	op     topology.OpTime
}

type fetchRequest struct {
	gen  int             // the requester's fetch generation
	last topology.OpTime // the requester's newest entry
}

type fetchReply struct {
	entries []*oplog.Entry // the source's entries from last.TS on (inclusive)
	top     topology.OpTime
}

// network queues messages in (delivery time, send order); a cut pair or a
// dead end loses the message at delivery.
type network struct {
	opts  NetOptions
	rng   *rand.Rand
	queue []message
	seq   uint64
	cut   map[[2]int]bool
}

func newNetwork(opts NetOptions, rng *rand.Rand) *network {
	return &network{opts: opts, rng: rng, cut: map[[2]int]bool{}}
}

func (n *network) enqueue(now time.Time, m message) {
	if n.opts.DropPct > 0 && n.rng.IntN(100) < n.opts.DropPct {
		return
	}
	m.at = now.Add(time.Duration(n.rng.Int64N(int64(n.opts.MaxDelay) + 1)))
	n.seq++
	m.seq = n.seq
	n.queue = append(n.queue, m)
}

// due removes and returns the messages due at now, in delivery order.
func (n *network) due(now time.Time) []message {
	var out, later []message
	for _, m := range n.queue {
		if m.at.After(now) {
			later = append(later, m)
		} else {
			out = append(out, m)
		}
	}
	n.queue = later
	slices.SortFunc(out, func(a, b message) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return int(a.seq) - int(b.seq)
	})
	return out
}

// partition cuts every link between members of different groups.
func (n *network) partition(groups [][]int) {
	for gi, g := range groups {
		for gj, h := range groups {
			if gi == gj {
				continue
			}
			for _, a := range g {
				for _, b := range h {
					n.cut[[2]int{a, b}] = true
				}
			}
		}
	}
}

func (n *network) heal() { n.cut = map[[2]int]bool{} }

// linked reports whether a message from a can reach b now.
func (cl *Cluster) linked(a, b int) bool {
	return cl.members[a].alive && cl.members[b].alive && !cl.net.cut[[2]int{a, b}]
}

func (cl *Cluster) send(m message) {
	if m.to < 0 || m.to >= len(cl.members) {
		return
	}
	m.fromInc = cl.members[m.from].inc
	cl.net.enqueue(cl.now, m)
}

// deliver hands m to its receiver, if the link still holds.
func (cl *Cluster) deliver(m message) {
	if !cl.linked(m.from, m.to) {
		return
	}
	to := cl.members[m.to]
	if m.toInc != 0 && m.toInc != to.inc {
		return
	}
	switch m.kind {
	case msgHeartbeat:
		r := to.topo.Heartbeat()
		r.RTT = time.Millisecond
		cl.send(message{kind: msgHeartbeatReply, from: m.to, to: m.from, toInc: m.fromInc, hb: r})
	case msgHeartbeatReply:
		cl.do(to, to.topo.HeartbeatResponse(cl.now, m.hb))
	case msgVoteRequest:
		r, acts := to.topo.VoteRequest(cl.now, m.req)
		cl.do(to, acts)
		cl.send(message{kind: msgVoteReply, from: m.to, to: m.from, toInc: m.fromInc, req: m.req, vote: r})
	case msgVoteReply:
		cl.do(to, to.topo.VoteResponse(cl.now, cl.members[m.from].id, m.req.DryRun, m.req.Term, m.vote))
	case msgFetch:
		cl.serveFetch(to, m)
	case msgFetchReply:
		cl.onFetchReply(to, m)
	case msgUpdatePosition:
		cl.onUpdatePosition(to, m.pos)
	}
}
