package repl

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/netclient"
	"github.com/relaydb/relaydb/internal/repl/memnet"
	"github.com/relaydb/relaydb/internal/storage"
)

var (
	_ command.Replication = (*Coordinator)(nil)
	_ Transport           = (*netclient.Pool)(nil)
	_ Transport           = (*memnet.Endpoint)(nil)
)

// fakeNet connects in-process coordinators; cut hosts are unreachable.
// Each Send runs at once in its own goroutine, in real time (see memnet
// for a network the test steps).
type fakeNet struct {
	mu    sync.Mutex
	nodes map[string]*Coordinator
	cut   map[string]bool
}

func (n *fakeNet) Run(ctx context.Context, host, db string, cmd bson.D) (bson.D, error) {
	n.mu.Lock()
	target := n.nodes[host]
	down := n.cut[host]
	n.mu.Unlock()
	if target == nil || down {
		return nil, fmt.Errorf("fakenet: %s unreachable", host)
	}
	return runCommand(target, ctx, cmd[0].Key, cmd)
}

// from returns a Transport for the member at host: a cut member can
// neither send nor receive.
func (n *fakeNet) from(host string) Transport { return &fromHost{n: n, self: host} }

type fromHost struct {
	n    *fakeNet
	self string
}

func (f *fromHost) Send(host string, cmd bson.D, timeout time.Duration, done func(bson.D, error)) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		done(f.Run(ctx, host, "admin", cmd))
	}()
}

func (f *fromHost) Run(ctx context.Context, host, db string, cmd bson.D) (bson.D, error) {
	f.n.mu.Lock()
	down := f.n.cut[f.self]
	f.n.mu.Unlock()
	if down {
		return nil, fmt.Errorf("fakenet: %s is cut off", f.self)
	}
	return f.n.Run(ctx, host, db, cmd)
}

type cluster struct {
	t     *testing.T
	net   *fakeNet
	hosts []string
	cats  map[string]*catalog.Catalog
}

func newCluster(t *testing.T, n int) *cluster {
	cl := &cluster{t: t, net: &fakeNet{nodes: map[string]*Coordinator{}, cut: map[string]bool{}},
		cats: map[string]*catalog.Catalog{}}
	for i := range n {
		host := fmt.Sprintf("n%d:27017", i)
		cat, err := catalog.Open(catalog.Options{Storage: storage.Options{InMemory: true}, TTLInterval: -1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cat.Close() })
		if i > 0 { // members hold data, so they are SECONDARY (no initial sync here)
			if _, err := cat.WriteNoop(bson.D{{Key: "msg", Value: "seed"}}); err != nil {
				t.Fatal(err)
			}
		}
		cl.hosts = append(cl.hosts, host)
		cl.cats[host] = cat
		cl.start(host, int64(i))
	}
	return cl
}

func quietLogger() *slog.Logger {
	if os.Getenv("REPL_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

func (cl *cluster) start(host string, seed int64) *Coordinator {
	c, err := New(Options{Catalog: cl.cats[host], Self: host, SetName: "rs", Transport: cl.net.from(host),
		Logger: quietLogger(), Rand: rand.New(rand.NewPCG(uint64(seed), 7)), TickInterval: 10 * time.Millisecond})
	if err != nil {
		cl.t.Fatal(err)
	}
	cl.net.mu.Lock()
	cl.net.nodes[host] = c
	cl.net.mu.Unlock()
	c.Start()
	cl.t.Cleanup(c.Stop)
	return c
}

func (cl *cluster) node(host string) *Coordinator {
	cl.net.mu.Lock()
	defer cl.net.mu.Unlock()
	return cl.net.nodes[host]
}

func (cl *cluster) setCut(host string, cut bool) {
	cl.net.mu.Lock()
	cl.net.cut[host] = cut
	cl.net.mu.Unlock()
}

// initiateDoc is a fast-timing config of every host.
func (cl *cluster) initiateDoc() bson.D {
	members := bson.A{}
	for i, h := range cl.hosts {
		members = append(members, bson.D{{Key: "_id", Value: int32(i)}, {Key: "host", Value: h}})
	}
	return bson.D{{Key: "_id", Value: "rs"}, {Key: "members", Value: members},
		{Key: "settings", Value: bson.D{{Key: "heartbeatIntervalMillis", Value: int32(100)},
			{Key: "electionTimeoutMillis", Value: int32(400)}, {Key: "catchUpTimeoutMillis", Value: int32(200)}}}}
}

// waitPrimary waits for exactly one writable primary among the reachable
// members, other than not, and returns its host.
func (cl *cluster) waitPrimary(within time.Duration, not string) string {
	cl.t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		var prims []string
		for _, h := range cl.hosts {
			cl.net.mu.Lock()
			cut := cl.net.cut[h]
			cl.net.mu.Unlock()
			if !cut && h != not && cl.node(h).load().writable {
				prims = append(prims, h)
			}
		}
		if len(prims) == 1 {
			return prims[0]
		}
		time.Sleep(20 * time.Millisecond)
	}
	cl.t.Fatalf("no single writable primary within %v", within)
	return ""
}

// runCommand runs a replSet* command by name on c, for this package's
// harnesses, which connect coordinators without a command dispatcher
// (internal/sim sends through the command table instead).
func runCommand(c *Coordinator, ctx context.Context, name string, cmd bson.D) (bson.D, error) {
	switch name {
	case "replSetHeartbeat":
		return c.ReplSetHeartbeat(cmd)
	case "replSetRequestVotes":
		return c.ReplSetRequestVotes(cmd)
	case "replSetUpdatePosition":
		return c.ReplSetUpdatePosition(cmd)
	case "replSetInitiate":
		return c.ReplSetInitiate(cmd)
	case "replSetGetConfig":
		return c.ReplSetGetConfig()
	case "replSetReconfig":
		return c.ReplSetReconfig(cmd)
	case "replSetGetStatus":
		return c.ReplSetGetStatus()
	case "replSetStepDown":
		return c.ReplSetStepDown(ctx, cmd)
	case "replSetFreeze":
		return c.ReplSetFreeze(cmd)
	case "replSetSyncFrom":
		return c.ReplSetSyncFrom(cmd)
	case "replSetMaintenance":
		return c.ReplSetMaintenance(cmd)
	}
	return nil, mongoerr.New(mongoerr.CommandNotFound, "no such command: '%s'", name)
}
