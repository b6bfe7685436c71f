package repl

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/repl/clock"
	"github.com/relaydb/relaydb/internal/repl/memnet"
	"github.com/relaydb/relaydb/internal/storage"
)

// stepped is a replica set of real Coordinators that the test steps: one
// manual clock, an in-memory network whose messages are delivered in an
// order drawn from the seed, no Start (so no goroutines) and no sleeps.
type stepped struct {
	t     *testing.T
	clk   *clock.Manual
	net   *memnet.Network
	rng   *rand.Rand // the delivery schedule
	hosts []string
	nodes map[string]*Coordinator
	trace []string // every change of a member's state, term or writability
	last  map[string]string
	start time.Time
}

// stepTick is how far the clock moves per step (the loop's TickInterval).
const stepTick = 10 * time.Millisecond

func newStepped(t *testing.T, n int, seed uint64) *stepped {
	t.Helper()
	start := time.Unix(1_700_000_000, 0)
	s := &stepped{t: t, clk: clock.NewManual(start), net: memnet.New(), rng: rand.New(rand.NewPCG(seed, 1)),
		nodes: map[string]*Coordinator{}, last: map[string]string{}, start: start}
	for i := range n {
		host := fmt.Sprintf("n%d:27017", i)
		cat, err := catalog.Open(catalog.Options{Storage: storage.Options{InMemory: true}, TTLInterval: -1,
			Logger: quietLogger(), Now: s.clk.Now})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cat.Close() })
		if i > 0 { // members hold data, so they are SECONDARY (no initial sync here)
			if _, err := cat.WriteNoop(bson.D{{Key: "msg", Value: "seed"}}); err != nil {
				t.Fatal(err)
			}
		}
		c, err := New(Options{Catalog: cat, Self: host, SetName: "rs", Transport: s.net.Endpoint(host),
			Clock: s.clk, Logger: quietLogger(), Rand: rand.New(rand.NewPCG(seed, uint64(i)))})
		if err != nil {
			t.Fatal(err)
		}
		s.net.Register(host, func(ctx context.Context, cmd bson.D) (bson.D, error) {
			return runCommand(c, ctx, cmd[0].Key, cmd)
		})
		s.hosts = append(s.hosts, host)
		s.nodes[host] = c
	}
	return s
}

// step moves the clock one tick, ticks every member and delivers every
// message (including those sent meanwhile) in a seeded order.
func (s *stepped) step() {
	s.clk.Advance(stepTick)
	for _, h := range s.hosts {
		s.nodes[h].Tick()
	}
	for k := 0; s.net.Len() > 0; k++ {
		if k == 10_000 {
			s.t.Fatalf("messages never settle: %v", s.net.Pending())
		}
		s.net.Deliver(s.rng.IntN(s.net.Len()))
	}
	s.record()
}

func (s *stepped) record() {
	for _, h := range s.hosts {
		sn := s.nodes[h].load()
		cur := fmt.Sprintf("%s term=%d writable=%v", sn.state, sn.term, sn.writable)
		if s.last[h] != cur {
			s.last[h] = cur
			s.trace = append(s.trace, fmt.Sprintf("+%v %s %s", s.clk.Now().Sub(s.start), h, cur))
		}
	}
}

// until steps until cond holds, failing after within of clock time.
func (s *stepped) until(within time.Duration, what string, cond func() bool) {
	s.t.Helper()
	for deadline := s.clk.Now().Add(within); !cond(); s.step() {
		if s.clk.Now().After(deadline) {
			s.t.Fatalf("no %s within %v:\n%s", what, within, strings.Join(s.trace, "\n"))
		}
	}
}

// primaries are the writable primaries among hosts.
func (s *stepped) primaries(hosts ...string) []string {
	var ps []string
	for _, h := range hosts {
		if s.nodes[h].load().writable {
			ps = append(ps, h)
		}
	}
	return ps
}

func (s *stepped) others(not string) []string {
	var hs []string
	for _, h := range s.hosts {
		if h != not {
			hs = append(hs, h)
		}
	}
	return hs
}

// electThenStepDown initiates a 3-member set, waits for its primary,
// isolates it until it steps down and another member is elected, then
// heals the network. It returns the trace.
func electThenStepDown(t *testing.T, seed uint64) []string {
	s := newStepped(t, 3, seed)
	doc := (&cluster{hosts: s.hosts}).initiateDoc()
	if _, err := runCommand(s.nodes[s.hosts[0]], context.Background(), "replSetInitiate",
		bson.D{{Key: "replSetInitiate", Value: doc}}); err != nil {
		t.Fatal(err)
	}
	s.until(5*time.Second, "single primary", func() bool { return len(s.primaries(s.hosts...)) == 1 })
	old := s.primaries(s.hosts...)[0]
	oldTerm := s.nodes[old].load().term

	s.net.Isolate(old, true)
	s.until(5*time.Second, "step-down and a new primary", func() bool {
		return !s.nodes[old].load().writable && len(s.primaries(s.others(old)...)) == 1
	})
	next := s.primaries(s.others(old)...)[0]
	if term := s.nodes[next].load().term; term <= oldTerm {
		t.Fatalf("seed %d: new primary's term %d, old %d", seed, term, oldTerm)
	}

	s.net.HealAll()
	s.until(5*time.Second, "the old primary to learn the new term", func() bool {
		return s.nodes[old].load().term >= s.nodes[next].load().term
	})
	for range 100 { // a second of clock time: nothing changes hands
		s.step()
		if ps := s.primaries(s.hosts...); len(ps) != 1 || ps[0] != next {
			t.Fatalf("seed %d: primaries %v after healing, want [%s]:\n%s", seed, ps, next, strings.Join(s.trace, "\n"))
		}
	}
	return s.trace
}

// TestSteppedElectionAndStepDown runs real Coordinators on a manual clock
// and memnet: an election, a step-down of the isolated primary and the
// election of another, identical in every run of a seed.
// REPL_STEP_SEED=n runs that seed alone.
func TestSteppedElectionAndStepDown(t *testing.T) {
	seeds := []uint64{1, 2, 3, 4, 5}
	if v := os.Getenv("REPL_STEP_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		seeds = []uint64{n}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			a := electThenStepDown(t, seed)
			b := electThenStepDown(t, seed)
			if strings.Join(a, "\n") != strings.Join(b, "\n") {
				t.Fatalf("seed %d is not reproducible:\n--- first\n%s\n--- second\n%s", seed,
					strings.Join(a, "\n"), strings.Join(b, "\n"))
			}
			t.Logf("seed %d:\n%s", seed, strings.Join(a, "\n"))
		})
	}
}

// heartbeatsTo returns the queued heartbeats from -> to.
func (s *stepped) heartbeatsTo(from, to string) []int {
	var idx []int
	for i, m := range s.net.Pending() {
		if m.Name() == "replSetHeartbeat" && m.From == from && m.To == to {
			idx = append(idx, i)
		}
	}
	return idx
}

// TestHeartbeatRetriedOnceWithinTimeout: a failed heartbeat is sent again
// at once, once, unless its timeout has passed; then the peer is marked
// unreachable and heartbeats resume on schedule.
func TestHeartbeatRetriedOnceWithinTimeout(t *testing.T) {
	s := newStepped(t, 3, 1)
	n0, n1 := s.hosts[0], s.hosts[1]
	doc := (&cluster{hosts: s.hosts}).initiateDoc()
	if _, err := runCommand(s.nodes[n0], context.Background(), "replSetInitiate",
		bson.D{{Key: "replSetInitiate", Value: doc}}); err != nil {
		t.Fatal(err)
	}
	hb := s.heartbeatsTo(n0, n1)
	if len(hb) != 1 {
		t.Fatalf("heartbeats n0->n1 after initiate: %v", s.net.Pending())
	}
	s.net.Drop(hb[0])
	retry := s.heartbeatsTo(n0, n1)
	if len(retry) != 1 {
		t.Fatalf("no immediate retry: %v", s.net.Pending())
	}
	s.net.Drop(retry[0])
	if again := s.heartbeatsTo(n0, n1); len(again) != 0 {
		t.Fatalf("retried twice: %v", s.net.Pending())
	}
	c := s.nodes[n0]
	c.mu.Lock()
	p := *c.peerLocked(1)
	c.mu.Unlock()
	if p.inflight || p.health || p.lastErr == "" {
		t.Fatalf("peer after two failures: %+v", p)
	}

	// A failure after the timeout is not retried.
	for k := 0; len(s.heartbeatsTo(n0, n1)) == 0; k++ {
		if k == 100 {
			t.Fatalf("no heartbeat n0->n1 within a second: %v", s.net.Pending())
		}
		s.net.Flush(1000)
		s.clk.Advance(stepTick)
		for _, h := range s.hosts {
			s.nodes[h].Tick()
		}
	}
	msg := s.net.Pending()[s.heartbeatsTo(n0, n1)[0]]
	s.clk.Advance(msg.Timeout)
	s.net.Drop(s.heartbeatsTo(n0, n1)[0])
	if again := s.heartbeatsTo(n0, n1); len(again) != 0 {
		t.Fatalf("retried after the timeout: %v", s.net.Pending())
	}
}
