// Package memnet is an in-memory network for the replication
// coordinator's node-to-node commands (repl.Transport): nothing moves until
// the test (or simulator) delivers it, so a run is reproducible from its
// schedule alone, with no sockets, goroutines or sleeps.
//
// Invariants:
//   - Send only queues: it never runs a handler or a done callback, so a
//     sender may call it while holding its own lock.
//   - Every queued message completes exactly once, by Deliver or Drop, and
//     its done runs on the caller of Deliver or Drop.
//   - Messages stay in send order; Deliver(i) takes any of them, so a
//     seeded schedule may reorder them.
//   - A message whose sender or receiver is isolated, or whose link is
//     partitioned, at delivery fails as a dropped message does: the
//     receiver never sees it.
package memnet

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// ErrDropped is the error a dropped or undeliverable message completes with.
var ErrDropped = errors.New("memnet: message dropped")

// Handler answers a command sent to a member (for a repl.Coordinator,
// its RunCommand).
type Handler func(ctx context.Context, cmd bson.D) (bson.D, error)

// Message is a command in flight.
type Message struct {
	Seq      uint64 // send order, from 1
	From, To string
	Cmd      bson.D
	Timeout  time.Duration // the sender's; memnet does not enforce it
	done     func(bson.D, error)
}

// Name is the command's name (its first key).
func (m *Message) Name() string {
	if len(m.Cmd) == 0 {
		return ""
	}
	return m.Cmd[0].Key
}

func (m *Message) String() string { return fmt.Sprintf("#%d %s %s->%s", m.Seq, m.Name(), m.From, m.To) }

// Network queues messages between registered hosts.
type Network struct {
	mu struct {
		sync.Mutex
		seq      uint64
		queue    []*Message
		handlers map[string]Handler
		isolated map[string]bool
		cut      map[[2]string]bool // unordered pairs, stored both ways
	}
}

// New returns an empty network.
func New() *Network {
	n := &Network{}
	n.mu.handlers = map[string]Handler{}
	n.mu.isolated = map[string]bool{}
	n.mu.cut = map[[2]string]bool{}
	return n
}

// Register makes h answer the commands sent to host.
func (n *Network) Register(host string, h Handler) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.mu.handlers[host] = h
}

// Endpoint is host's side of the network: a repl.Transport.
type Endpoint struct {
	n    *Network
	self string
}

// Endpoint returns the transport the member at host sends with.
func (n *Network) Endpoint(host string) *Endpoint { return &Endpoint{n: n, self: host} }

// Send queues cmd for host; done runs when the message is delivered or
// dropped.
func (e *Endpoint) Send(host string, cmd bson.D, timeout time.Duration, done func(bson.D, error)) {
	e.send(host, cmd, timeout, done)
}

// send queues a message and returns its Seq.
func (e *Endpoint) send(host string, cmd bson.D, timeout time.Duration, done func(bson.D, error)) uint64 {
	n := e.n
	n.mu.Lock()
	defer n.mu.Unlock()
	n.mu.seq++
	n.mu.queue = append(n.mu.queue, &Message{Seq: n.mu.seq, From: e.self, To: host, Cmd: cmd,
		Timeout: timeout, done: done})
	return n.mu.seq
}

// Pending returns the queued messages in send order.
func (n *Network) Pending() []*Message {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]*Message(nil), n.mu.queue...)
}

// Len is the number of queued messages.
func (n *Network) Len() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.mu.queue)
}

// Deliver takes the i-th queued message, runs its receiver's handler
// (unless the message cannot get through) and completes it with the
// answer. It returns the message.
func (n *Network) Deliver(i int) *Message {
	m, h, ok := n.take(i)
	if !ok {
		m.done(nil, fmt.Errorf("%w: %s unreachable", ErrDropped, m.To))
		return m
	}
	reply, err := h(context.Background(), m.Cmd)
	if !n.reachable(m.From, m.To) { // cut while the handler ran: the answer is lost
		reply, err = nil, fmt.Errorf("%w: answer from %s lost", ErrDropped, m.To)
	}
	m.done(reply, err)
	return m
}

// Drop takes the i-th queued message and completes it with ErrDropped; the
// receiver never sees it.
func (n *Network) Drop(i int) *Message {
	n.mu.Lock()
	m := n.removeLocked(i)
	n.mu.Unlock()
	m.done(nil, ErrDropped)
	return m
}

// DeliverSeq delivers the queued message with sequence number seq (see
// Deliver); false if it is not queued.
func (n *Network) DeliverSeq(seq uint64) bool {
	if i := n.index(seq); i >= 0 {
		n.Deliver(i)
		return true
	}
	return false
}

// DropSeq drops the queued message with sequence number seq (see Drop);
// false if it is not queued.
func (n *Network) DropSeq(seq uint64) bool {
	if i := n.index(seq); i >= 0 {
		n.Drop(i)
		return true
	}
	return false
}

// DropHost drops every queued message from or to host, including those
// their completions send, as a process that dies loses its connections.
// It returns how many it dropped.
func (n *Network) DropHost(host string) int {
	dropped := 0
	for {
		i := -1
		for j, m := range n.Pending() {
			if m.From == host || m.To == host {
				i = j
				break
			}
		}
		if i < 0 {
			return dropped
		}
		n.Drop(i)
		dropped++
	}
}

func (n *Network) index(seq uint64) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	for i, m := range n.mu.queue {
		if m.Seq == seq {
			return i
		}
	}
	return -1
}

// Flush delivers queued messages in send order, including those sent
// while delivering, until none is left; it panics after max deliveries
// (a schedule that never settles). It returns how many it delivered.
func (n *Network) Flush(max int) int {
	for k := 0; ; k++ {
		if n.Len() == 0 {
			return k
		}
		if k == max {
			panic(fmt.Sprintf("memnet: still %d messages after %d deliveries", n.Len(), max))
		}
		n.Deliver(0)
	}
}

// Isolate cuts host off from every other member (on=false restores it).
func (n *Network) Isolate(host string, on bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.mu.isolated[host] = on
}

// Partition cuts (on) or restores the link between a and b, both ways.
func (n *Network) Partition(a, b string, on bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.mu.cut[[2]string{a, b}] = on
	n.mu.cut[[2]string{b, a}] = on
}

// HealAll restores every link and isolated host.
func (n *Network) HealAll() {
	n.mu.Lock()
	defer n.mu.Unlock()
	clear(n.mu.isolated)
	clear(n.mu.cut)
}

func (n *Network) take(i int) (*Message, Handler, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	m := n.removeLocked(i)
	h := n.mu.handlers[m.To]
	return m, h, h != nil && n.reachableLocked(m.From, m.To)
}

// removeLocked takes the i-th queued message out. REQUIRES: n.mu.
func (n *Network) removeLocked(i int) *Message {
	if i < 0 || i >= len(n.mu.queue) {
		panic(fmt.Sprintf("memnet: no message %d of %d", i, len(n.mu.queue)))
	}
	m := n.mu.queue[i]
	n.mu.queue = append(n.mu.queue[:i:i], n.mu.queue[i+1:]...)
	return m
}

// Reachable reports whether a message from a would get to b now.
func (n *Network) Reachable(a, b string) bool { return n.reachable(a, b) }

// Isolated reports whether host is cut off from everyone (Isolate).
func (n *Network) Isolated(host string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.mu.isolated[host]
}

func (n *Network) reachable(a, b string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.reachableLocked(a, b)
}

// reachableLocked: a message from a gets to b. REQUIRES: n.mu.
func (n *Network) reachableLocked(a, b string) bool {
	return !n.mu.isolated[a] && !n.mu.isolated[b] && !n.mu.cut[[2]string{a, b}]
}
