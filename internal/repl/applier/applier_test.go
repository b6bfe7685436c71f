package applier

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl/topology"
	"github.com/relaydb/relaydb/internal/storage"
)

// manualClock fires After channels only when advanced.
type manualClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []waiter
	waiting chan struct{} // signalled on each After
}

type waiter struct {
	at time.Time
	ch chan time.Time
}

func newClock(now time.Time) *manualClock {
	return &manualClock{now: now, waiting: make(chan struct{}, 100)}
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	c.waiters = append(c.waiters, waiter{at: c.now.Add(d), ch: ch})
	c.waiting <- struct{}{}
	return ch
}

func (c *manualClock) set(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = now
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if w.at.After(now) {
			kept = append(kept, w)
		} else {
			w.ch <- now
		}
	}
	c.waiters = kept
}

func openCat(t *testing.T, now func() time.Time) *catalog.Catalog {
	t.Helper()
	c, err := catalog.Open(catalog.Options{Storage: storage.Options{InMemory: true}, TTLInterval: -1, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

var t0 = time.Unix(1_700_000_000, 0)

// primaryEntries writes a collection and n inserts on a primary whose
// clock moves one second per write; entry i+1 has wall t0 + i s.
func primaryEntries(t *testing.T, n int) []*oplog.Entry {
	t.Helper()
	now := t0
	p := openCat(t, func() time.Time { return now })
	coll, err := p.CreateCollection("app", "c", nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		now = t0.Add(time.Duration(i) * time.Second)
		if _, err := p.Insert(coll, bson.D{{Key: "_id", Value: int32(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	es, err := p.Oplog().Read(bson.Timestamp{}, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

func opTime(e *oplog.Entry) topology.OpTime { return topology.OpTime{TS: e.TS, Term: e.Term} }

func TestApplyWithoutDelayAndDurable(t *testing.T) {
	es := primaryEntries(t, 5)
	s := openCat(t, nil)
	a := New(s, Options{})
	if !a.Last().IsZero() {
		t.Fatalf("empty node starts at %v", a.Last())
	}
	last, err := a.Apply(context.Background(), es)
	if err != nil || last != opTime(es[len(es)-1]) {
		t.Fatalf("apply: %v %v", last, err)
	}
	d, err := a.Durable(context.Background())
	if err != nil || d != last {
		t.Fatalf("durable %v %v", d, err)
	}
	if m := s.Engine().Metrics(); m.Durable < a.AppliedSeq() {
		t.Fatalf("durable seq %d < applied %d", m.Durable, a.AppliedSeq())
	}
	if got := New(s, Options{}).Last(); got != last {
		t.Fatalf("a new applier starts at %v, want %v", got, last)
	}
}

func TestSecondaryDelay(t *testing.T) {
	es := primaryEntries(t, 4) // walls: create t0, inserts t0, t0+1s, t0+2s, t0+3s
	clock := newClock(t0.Add(5 * time.Second))
	s := openCat(t, nil)
	a := New(s, Options{SecondaryDelay: 10 * time.Second, Clock: clock})
	type result struct {
		last topology.OpTime
		err  error
	}
	done := make(chan result, 1)
	go func() {
		last, err := a.Apply(context.Background(), es)
		done <- result{last, err}
	}()
	<-clock.waiting // nothing is due at t0+5s
	if !a.Last().IsZero() {
		t.Fatalf("applied before its time: %v", a.Last())
	}
	steps := []struct {
		now  time.Duration // since t0
		last int           // index of the last entry applied then
	}{{10 * time.Second, 1}, {11500 * time.Millisecond, 2}}
	for _, st := range steps {
		clock.set(t0.Add(st.now))
		<-clock.waiting // applied what was due, waits for the next
		if got := a.Last(); got != opTime(es[st.last]) {
			t.Fatalf("at t0+%v: last %v want entry %d", st.now, got, st.last)
		}
	}
	clock.set(t0.Add(13 * time.Second))
	r := <-done
	if r.err != nil || r.last != opTime(es[len(es)-1]) {
		t.Fatalf("apply: %v %v", r.last, r.err)
	}
}

func TestDelayIsCancellable(t *testing.T) {
	es := primaryEntries(t, 2)
	clock := newClock(t0)
	a := New(openCat(t, nil), Options{SecondaryDelay: time.Hour, Clock: clock})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-clock.waiting; cancel() }()
	last, err := a.Apply(ctx, es)
	if !errors.Is(err, context.Canceled) || !last.IsZero() {
		t.Fatalf("cancelled apply: %v %v", last, err)
	}
}

func TestApplyErrorReportsProgress(t *testing.T) {
	es := primaryEntries(t, 3)
	a := New(openCat(t, nil), Options{})
	bad := *es[2]
	bad.Op = "x"
	last, err := a.Apply(context.Background(), []*oplog.Entry{es[0], es[1], &bad})
	if err == nil || last != opTime(es[1]) {
		t.Fatalf("apply: %v %v", last, err)
	}
}
