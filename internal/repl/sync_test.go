package repl

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/netclient"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl/fetcher"
	"github.com/relaydb/relaydb/internal/repl/repltest"
	"github.com/relaydb/relaydb/internal/repl/topology"
	"github.com/relaydb/relaydb/internal/storage"
)

// plainSource serves cat over TCP with no coordinator.
func plainSource(t *testing.T, cat *catalog.Catalog) string {
	t.Helper()
	return repltest.Serve(t, cat, quietLogger())
}

func memCatalog(t *testing.T, now func() time.Time) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Open(catalog.Options{Storage: storage.Options{InMemory: true}, TTLInterval: -1,
		Logger: quietLogger(), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cat.Close() })
	return cat
}

// recProgress records what a Syncer reports, in order.
type recProgress struct {
	mu       sync.Mutex
	events   []string
	applied  topology.OpTime
	durable  topology.OpTime
	observed []*oplog.Entry
}

func (p *recProgress) OnApplied(op topology.OpTime) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.applied = maxOp(p.applied, op)
	if n := len(p.events); n == 0 || p.events[n-1] != "applied" {
		p.events = append(p.events, "applied")
	}
}

func (p *recProgress) OnDurable(op topology.OpTime) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.durable = maxOp(p.durable, op)
}

func (p *recProgress) OnInitialSync(active bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.events = append(p.events, map[bool]string{true: "start", false: "done"}[active])
}

func (p *recProgress) observe(es []*oplog.Entry) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.observed = append(p.observed, es...)
}

// waitFor polls cond (under p.mu) for up to 15 s.
func (p *recProgress) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		p.mu.Lock()
		ok := cond()
		p.mu.Unlock()
		if ok {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	t.Fatalf("timed out waiting for %s; events %v applied %v", what, p.events, p.applied)
}

func startLoop(t *testing.T, dst *catalog.Catalog, host string, p *recProgress) {
	t.Helper()
	pool := netclient.NewPool(netclient.Options{Logger: quietLogger()})
	s := NewSyncLoop(SyncOptions{Catalog: dst, Logger: quietLogger(), Retry: 20 * time.Millisecond,
		Observe: p.observe, CloneBatchSize: 40,
		Fetcher: &fetcher.Fetcher{MaxAwait: 20 * time.Millisecond, Logger: quietLogger()},
		Dial:    func(ctx context.Context, h string) (SourceConn, error) { return pool.Dial(ctx, h) }})(p)
	s.Start(host, topology.OpTime{})
	t.Cleanup(func() {
		s.Stop()
		pool.Close()
	})
}

func fillSource(t *testing.T, src *catalog.Catalog, n int) *catalog.Collection {
	t.Helper()
	coll, _, err := src.EnsureCollection("app", "c")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := src.CreateIndexes(coll, []bson.D{{{Key: "key", Value: bson.D{{Key: "k", Value: int32(1)}}},
		{Key: "name", Value: "k_1"}, {Key: "unique", Value: true}}}); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, err := src.Insert(coll, bson.D{{Key: "_id", Value: int32(i)}, {Key: "k", Value: int32(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	return coll
}

// TestSyncLoopInitialSyncThenTails: an empty member clones, tells the
// coordinator (start, done, then applied), then tails new writes and
// observes the retryable-write fields they carry.
func TestSyncLoopInitialSyncThenTails(t *testing.T) {
	src := memCatalog(t, nil)
	coll := fillSource(t, src, 300)
	host := plainSource(t, src)
	dst := memCatalog(t, nil)
	p := &recProgress{}
	startLoop(t, dst, host, p)
	p.waitFor(t, "initial sync", func() bool { return len(p.events) >= 3 })
	if got := p.events[:3]; got[0] != "start" || got[1] != "done" || got[2] != "applied" {
		t.Fatalf("events %v, want start, done, applied", p.events)
	}
	txn := catalog.WriteOption{Txn: bson.D{{Key: "lsid", Value: bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: make([]byte, 16)}}}},
		{Key: "txnNumber", Value: int64(1)}, {Key: "stmtId", Value: int32(0)}}}
	if _, err := src.Insert(coll, bson.D{{Key: "_id", Value: int32(1000)}, {Key: "k", Value: int32(1000)}}, txn); err != nil {
		t.Fatal(err)
	}
	ts, term := src.Oplog().Top()
	want := topology.OpTime{TS: ts, Term: term}
	p.waitFor(t, "the new write", func() bool { return !p.applied.Less(want) && !p.durable.Less(want) })
	if n := dst.Collection("app", "c").Count(); n != 301 {
		t.Fatalf("destination has %d documents, want 301", n)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	last := p.observed[len(p.observed)-1]
	if last.TS != ts || len(last.Extra) == 0 {
		t.Fatalf("last observed entry %v (extra %v), want the retryable insert at %v", last.TS, last.Extra, ts)
	}
}

// TestSyncLoopTooStaleResyncs: a member whose last entry the source no
// longer holds wipes its data and syncs again.
func TestSyncLoopTooStaleResyncs(t *testing.T) {
	old := memCatalog(t, func() time.Time { return time.Unix(1_000_000, 0) })
	stale, _, err := old.EnsureCollection("app", "stale")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Insert(stale, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	src := memCatalog(t, nil)
	fillSource(t, src, 50)
	p := &recProgress{}
	startLoop(t, old, plainSource(t, src), p)
	p.waitFor(t, "resync", func() bool { return len(p.events) >= 2 && p.events[1] == "done" })
	if old.Collection("app", "stale") != nil {
		t.Fatal("the stale member's own collection survived the resync")
	}
	if c := old.Collection("app", "c"); c == nil || c.Count() != 50 {
		t.Fatalf("app.c not cloned: %v", c)
	}
	if p.events[0] != "start" {
		t.Fatalf("events %v", p.events)
	}
}
