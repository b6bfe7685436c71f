package sharding

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/tests/harness"
)

// upTimeout bounds restarting a member and waiting for its primary.
const upTimeout = 40 * time.Second

// topo is a running sharded cluster: config servers, shards, a router.
type topo struct {
	cfg    *cluster.Cluster
	shards map[string]*cluster.Cluster // by set name: sh0, sh1
	router *harness.Router
}

// startTopo starts the config server set and two shard sets in parallel,
// then the router; everything is stopped by t.Cleanup. No shard is added.
func startTopo(t testing.TB) *topo {
	t.Helper()
	sets := startSets(t, []cluster.Spec{
		{Name: "cfg", ExtraArgs: []string{"--configsvr"}},
		{Name: "sh0", ExtraArgs: []string{"--shardsvr"}},
		// sh1 has a read-only (non-voting) secondary for secondary reads;
		// its primary alone is the majority, so restarts keep it writable.
		{Name: "sh1", ExtraArgs: []string{"--shardsvr"}, ReadOnly: 1},
	})
	tp := &topo{cfg: sets[0], shards: map[string]*cluster.Cluster{"sh0": sets[1], "sh1": sets[2]}}
	tp.router = harness.StartRouter(t, "cfg/"+sets[0].Members()[0].Host)
	return tp
}

// startSets starts one-data-member replica sets of specs in parallel
// (harness.StartSets).
func startSets(t testing.TB, specs []cluster.Spec) []*cluster.Cluster {
	t.Helper()
	return harness.StartSets(t, specs)
}

// seed is "setName/host" of a set's first member.
func seed(c *cluster.Cluster) string { return harness.Seed(c) }

// topologyKinds records the driver's topology kinds (Unknown, Sharded, ...).
type topologyKinds struct {
	mu    sync.Mutex
	kinds []string
}

func (k *topologyKinds) last() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.kinds) == 0 {
		return ""
	}
	return k.kinds[len(k.kinds)-1]
}

func (k *topologyKinds) String() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return strings.Join(k.kinds, " -> ")
}

// connectRouter connects through the router as an application would (no
// directConnection), recording the topology kinds the driver reports.
func connectRouter(t testing.TB, tp *topo) (*mongo.Client, *topologyKinds) {
	t.Helper()
	kinds := &topologyKinds{}
	mon := &event.ServerMonitor{TopologyDescriptionChanged: func(e *event.TopologyDescriptionChangedEvent) {
		kinds.mu.Lock()
		kinds.kinds = append(kinds.kinds, e.NewDescription.Kind)
		kinds.mu.Unlock()
	}}
	cl, err := mongo.Connect(options.Client().ApplyURI(tp.router.URI()).
		SetServerSelectionTimeout(10 * time.Second).SetServerMonitor(mon))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Disconnect(context.Background()) })
	return cl, kinds
}

// shardClient is a direct client to the (only) member of shard set name.
func (tp *topo) shardClient(t *testing.T, name string) *mongo.Client {
	t.Helper()
	return harness.FirstMemberClient(t, tp.shards[name])
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func must(t testing.TB, err error, what string, args ...any) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", fmt.Sprintf(what, args...), err)
	}
}
