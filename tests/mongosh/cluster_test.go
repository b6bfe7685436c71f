package mongosh

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/tests/harness"
)

// upTimeout bounds starting one replica set (processes, initiate, primary).
const upTimeout = 40 * time.Second

// topo is a small sharded cluster: a one-member config server set, two
// one-member shard sets (sh0, sh1) that are not added yet, one router.
type topo struct {
	cfg    *cluster.Cluster
	shards map[string]*cluster.Cluster
	router *harness.Router
}

// startTopo starts the sets in parallel, then the router; t.Cleanup stops
// everything (printing member log tails when t failed).
func startTopo(t *testing.T) *topo {
	t.Helper()
	bin, err := harness.Binary()
	if err != nil {
		t.Fatal(err)
	}
	specs := []cluster.Spec{
		{Name: "cfg", ExtraArgs: []string{"--configsvr"}},
		{Name: "sh0", ExtraArgs: []string{"--shardsvr"}},
		{Name: "sh1", ExtraArgs: []string{"--shardsvr"}},
	}
	sets := make([]*cluster.Cluster, len(specs))
	errs := make([]error, len(specs))
	var wg sync.WaitGroup
	for i, s := range specs {
		s.Data, s.Bin, s.DieWithParent = 1, bin, true
		s.Dir = filepath.Join(t.TempDir(), s.Name)
		s.PrimaryTimeout = 20 * time.Second
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), upTimeout)
			defer cancel()
			sets[i], errs[i] = cluster.Up(ctx, s)
		}()
	}
	wg.Wait()
	for i, c := range sets {
		if c == nil {
			continue
		}
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("%s member log tail:\n%s", specs[i].Name, logTail(c))
			}
			_ = c.Down(context.Background())
		})
	}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("start %s: %v", specs[i].Name, err)
		}
	}
	tp := &topo{cfg: sets[0], shards: map[string]*cluster.Cluster{"sh0": sets[1], "sh1": sets[2]}}
	tp.router = harness.StartRouter(t, seed(tp.cfg))
	return tp
}

// seed is "setName/host" of a set's member.
func seed(c *cluster.Cluster) string { return c.Spec().Name + "/" + c.Members()[0].Host }

// shardClient is a direct client to shard set name's member.
func (tp *topo) shardClient(t *testing.T, name string) *mongo.Client {
	t.Helper()
	c := tp.shards[name]
	cl, err := c.Client(c.Members()[0])
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

func logTail(c *cluster.Cluster) string {
	b, err := os.ReadFile(c.Members()[0].LogPath)
	if err != nil {
		return err.Error()
	}
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return string(b)
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
