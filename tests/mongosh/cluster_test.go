package mongosh

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/tests/harness"
)

// topo is a small sharded cluster: a one-member config server set, two
// one-member shard sets (sh0, sh1) that are not added yet, one router.
type topo struct {
	cfg    *cluster.Cluster
	shards map[string]*cluster.Cluster
	router *harness.Router
}

// startTopo starts the sets in parallel (harness.StartSets), then the
// router; t.Cleanup stops everything.
func startTopo(t *testing.T) *topo {
	t.Helper()
	sets := harness.StartSets(t, []cluster.Spec{
		{Name: "cfg", ExtraArgs: []string{"--configsvr"}},
		{Name: "sh0", ExtraArgs: []string{"--shardsvr"}},
		{Name: "sh1", ExtraArgs: []string{"--shardsvr"}},
	})
	tp := &topo{cfg: sets[0], shards: map[string]*cluster.Cluster{"sh0": sets[1], "sh1": sets[2]}}
	tp.router = harness.StartRouter(t, seed(tp.cfg))
	return tp
}

// seed is "setName/host" of a set's member.
func seed(c *cluster.Cluster) string { return harness.Seed(c) }

// shardClient is a direct client to shard set name's member.
func (tp *topo) shardClient(t *testing.T, name string) *mongo.Client {
	t.Helper()
	return harness.FirstMemberClient(t, tp.shards[name])
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
