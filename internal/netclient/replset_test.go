package netclient

import (
	"context"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// fakeSet is a replica set of fake members that answer hello with a
// topologyVersion and hold an awaitable hello until the topology changes
// (elect) or maxAwaitTimeMS passes, as a relaydb member does.
type fakeSet struct {
	mu       sync.Mutex
	counter  int64
	primary  string
	hosts    []string
	listed   []string          // hosts hello lists; nil: all
	extra    map[string]bson.D // fields appended to a member's hello (tags, hidden, lastWrite)
	changed  chan struct{}
	awaits   atomic.Int32 // awaitable hellos received
	delay    atomic.Int64 // ns a prompt (not awaitable) hello is held
	open     atomic.Int32 // connections open
	lns      []net.Listener
	election byte
}

func startFakeSet(t testing.TB, n int) *fakeSet {
	t.Helper()
	fs := &fakeSet{changed: make(chan struct{})}
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		fs.lns = append(fs.lns, ln)
		fs.hosts = append(fs.hosts, ln.Addr().String())
		t.Cleanup(func() { ln.Close() })
	}
	fs.primary = fs.hosts[0]
	for i, ln := range fs.lns {
		go func() {
			for {
				nc, err := ln.Accept()
				if err != nil {
					return
				}
				fs.open.Add(1)
				go func() {
					defer fs.open.Add(-1)
					serveOpMsg(nc, func(cmd bson.D) (bson.D, bool) { return fs.answer(fs.hosts[i], cmd), true })
				}()
			}
		}()
	}
	return fs
}

// elect makes host the primary and wakes the awaitable hellos.
func (fs *fakeSet) elect(host string) {
	fs.mu.Lock()
	fs.primary, fs.counter = host, fs.counter+1
	fs.election++
	close(fs.changed)
	fs.changed = make(chan struct{})
	fs.mu.Unlock()
}

func (fs *fakeSet) hello(me string) bson.D {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	hosts := bson.A{}
	listed := fs.hosts
	if fs.listed != nil {
		listed = fs.listed
	}
	for _, h := range listed {
		hosts = append(hosts, h)
	}
	d := bson.D{{Key: "topologyVersion", Value: bson.D{{Key: "processId", Value: bson.ObjectID{1}}, {Key: "counter", Value: fs.counter}}},
		{Key: "hosts", Value: hosts}, {Key: "setName", Value: "rs"},
		{Key: "isWritablePrimary", Value: me == fs.primary}, {Key: "secondary", Value: me != fs.primary}}
	if me == fs.primary {
		d = append(d, bson.E{Key: "electionId", Value: bson.ObjectID{11: fs.election}})
	}
	d = append(d, fs.extra[me]...)
	return append(d, bson.E{Key: "ok", Value: 1.0})
}

// answer holds an awaitable hello until the topology changes or its
// maxAwaitTimeMS passes, a prompt one for the delay, then answers hello.
func (fs *fakeSet) answer(me string, cmd bson.D) bson.D {
	if tv, ok := bsonx.Get(cmd, "topologyVersion"); ok {
		fs.awaits.Add(1)
		fs.await(tv.(bson.D), cmd)
	} else {
		time.Sleep(time.Duration(fs.delay.Load()))
	}
	return fs.hello(me)
}

func (fs *fakeSet) await(tv, cmd bson.D) {
	ms, _ := bsonx.Get(cmd, "maxAwaitTimeMS")
	n, _ := bsonx.AsInt64(ms)
	c, _ := bsonx.Get(tv, "counter")
	counter, _ := bsonx.AsInt64(c)
	fs.mu.Lock()
	ch, same := fs.changed, counter == fs.counter
	fs.mu.Unlock()
	if !same {
		return
	}
	select {
	case <-ch:
	case <-time.After(time.Duration(n) * time.Millisecond):
	}
}

// waitFor polls cond every 10 ms for up to d.
func waitFor(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// TestReplicaSetFollowsElection: the set learns b and c from a's hello,
// and learns the new primary from the awaitable hellos the election
// answers, well before MaxAwait and with no command failing.
func TestReplicaSetFollowsElection(t *testing.T) {
	fs := startFakeSet(t, 3)
	pool := NewPool(Options{})
	defer pool.Close()
	rs := NewReplicaSet(pool, ReplicaSetOptions{Name: "rs", Seeds: fs.hosts[:1], MaxAwait: 5 * time.Second})
	defer rs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if p, err := rs.Primary(ctx); err != nil || p != fs.hosts[0] {
		t.Fatalf("primary = %q, %v; want %s", p, err, fs.hosts[0])
	}
	if got := rs.Secondaries(ctx); !slices.Equal(got, fs.hosts[1:]) {
		t.Fatalf("secondaries = %v, want %v (learned from hello's hosts)", got, fs.hosts[1:])
	}
	start := time.Now()
	fs.elect(fs.hosts[2])
	ok := waitFor(2*time.Second, func() bool { p, _ := rs.Primary(ctx); return p == fs.hosts[2] })
	if !ok {
		t.Fatalf("new primary not known %v after the election", time.Since(start))
	}
	if fs.awaits.Load() == 0 {
		t.Fatal("no awaitable hello was sent")
	}

	// a is removed from the set's config: the primary no longer lists it.
	fs.mu.Lock()
	fs.listed = fs.hosts[1:]
	fs.mu.Unlock()
	fs.elect(fs.hosts[2])
	if !waitFor(2*time.Second, func() bool { return slices.Equal(rs.Hosts(), fs.hosts[1:]) }) {
		t.Fatalf("hosts = %v after a was removed, want %v", rs.Hosts(), fs.hosts[1:])
	}
}

// TestReplicaSetStops: monitors close their connections on Close, when
// the pool closes, and when the set is idle (starting again on use).
func TestReplicaSetStops(t *testing.T) {
	fs := startFakeSet(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	pool := NewPool(Options{})
	defer pool.Close()
	rs := NewReplicaSet(pool, ReplicaSetOptions{Name: "rs", Seeds: fs.hosts, MaxAwait: 100 * time.Millisecond, IdleStop: 300 * time.Millisecond})
	if _, err := rs.Primary(ctx); err != nil {
		t.Fatal(err)
	}
	if !waitFor(2*time.Second, func() bool { return fs.open.Load() == 0 }) {
		t.Fatalf("idle set still holds %d connections", fs.open.Load())
	}
	if p, err := rs.Primary(ctx); err != nil || p != fs.hosts[0] {
		t.Fatalf("after idle: %q, %v", p, err)
	}
	rs.Close()
	if !waitFor(2*time.Second, func() bool { return fs.open.Load() == 0 }) {
		t.Fatalf("closed set still holds %d connections", fs.open.Load())
	}
	if _, err := rs.Primary(ctx); err == nil {
		t.Fatal("Primary on a closed set succeeded")
	}

	pool2 := NewPool(Options{})
	rs2 := NewReplicaSet(pool2, ReplicaSetOptions{Name: "rs", Seeds: fs.hosts, MaxAwait: 200 * time.Millisecond})
	if _, err := rs2.Primary(ctx); err != nil {
		t.Fatal(err)
	}
	pool2.Close()
	if !waitFor(2*time.Second, func() bool { return fs.open.Load() == 0 }) {
		t.Fatalf("set of a closed pool still holds %d connections", fs.open.Load())
	}
}

// TestReplicaSetPrimaryDies: the primary's listener and connections go
// away; the set reports no primary until another is elected, then that
// one, and Run reaches it.
func TestReplicaSetPrimaryDies(t *testing.T) {
	fs := startFakeSet(t, 2)
	pool := NewPool(Options{})
	defer pool.Close()
	rs := NewReplicaSet(pool, ReplicaSetOptions{Name: "rs", Seeds: fs.hosts, MaxAwait: 5 * time.Second, SelectTimeout: 300 * time.Millisecond})
	defer rs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := rs.Primary(ctx); err != nil {
		t.Fatal(err)
	}
	fs.lns[0].Close()
	fs.mu.Lock()
	fs.primary = "" // no primary until the election below
	fs.mu.Unlock()
	rs.MarkFailed(fs.hosts[0], nil) // as Run does after a network error
	if _, err := rs.Primary(ctx); err == nil {
		t.Fatal("a primary was reported while the set had none")
	}
	// A read goes to the secondary meanwhile (primaryPreferred).
	if _, host, err := rs.RunRead(ctx, "config", bson.D{{Key: "find", Value: "shards"}}); err != nil || host != fs.hosts[1] {
		t.Fatalf("read without a primary: on %q, %v; want %s", host, err, fs.hosts[1])
	}
	fs.elect(fs.hosts[1])
	reply, host, err := rs.Run(ctx, "admin", bson.D{{Key: "hello", Value: 1}}, true)
	if err != nil || host != fs.hosts[1] {
		t.Fatalf("run after election: %v on %s, %v", reply, host, err)
	}
}

// BenchmarkReplicaSetPrimary: the cost a command pays to learn where the
// primary is (the monitor keeps it current).
func BenchmarkReplicaSetPrimary(b *testing.B) {
	fs := startFakeSet(b, 3)
	pool := NewPool(Options{})
	defer pool.Close()
	rs := NewReplicaSet(pool, ReplicaSetOptions{Name: "rs", Seeds: fs.hosts})
	defer rs.Close()
	ctx := context.Background()
	if _, err := rs.Primary(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := rs.Primary(ctx); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// TestReplicaSetMarkFailedHealthy: a command failing on a primary that is
// in fact healthy (a broken connection) costs one prompt hello, never an
// awaitable hello's MaxAwait, whenever the MarkFailed lands.
func TestReplicaSetMarkFailedHealthy(t *testing.T) {
	fs := startFakeSet(t, 2)
	pool := NewPool(Options{})
	defer pool.Close()
	rs := NewReplicaSet(pool, ReplicaSetOptions{Name: "rs", Seeds: fs.hosts, MaxAwait: 10 * time.Second})
	defer rs.Close()
	ctx := context.Background()
	if _, err := rs.Primary(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		time.Sleep(time.Duration(i%5) * time.Millisecond)
		rs.MarkFailed(fs.hosts[0], nil)
		pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		p, err := rs.Primary(pctx)
		cancel()
		if err != nil || p != fs.hosts[0] {
			t.Fatalf("round %d: primary %q, %v after MarkFailed of a healthy primary", i, p, err)
		}
	}
}
