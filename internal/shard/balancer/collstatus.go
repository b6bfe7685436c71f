package balancer

import (
	"cmp"
	"context"
	"fmt"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// Compliance violations of balancerCollectionStatus (MongoDB's names;
// zones and defragmentation do not exist in relaydb).
const (
	ViolationDraining        = "draining"
	ViolationChunksImbalance = "chunksImbalance"
)

// CollectionStatus is balancerCollectionStatus: whether the balancer
// would move any of ns's ranges now (Plan on this collection alone, from
// the shards' current sizes), and the chunk size in MB. An unsharded ns
// is NamespaceNotSharded (118).
type CollectionStatus struct {
	ChunkSizeMB int64
	Compliant   bool
	Violation   string // "" when Compliant
}

// CollectionStatus computes ns's status with the balancer's cluster and
// shard clients.
func (b *Balancer) CollectionStatus(ctx context.Context, ns string) (CollectionStatus, error) {
	cfg, err := b.opts.Cluster.Config(ctx)
	if err != nil {
		return CollectionStatus{}, err
	}
	out := CollectionStatus{Compliant: true}
	info, err := b.collection(ctx, ns)
	if err != nil {
		return out, err
	}
	cm, size := info.CM, cmp.Or(info.ChunkSize, cfg.ChunkSize)
	out.ChunkSizeMB = size >> 20
	shards, err := b.opts.Cluster.Shards(ctx)
	if err != nil {
		return out, err
	}
	stats, err := b.gather(ctx, shards, map[string]*routing.ChunkManager{ns: cm})
	if err != nil {
		return out, err
	}
	c := Collection{NS: ns, Chunks: cm.Chunks(), Size: map[string]int64{}, ChunkSize: size}
	for shard, byNS := range stats {
		c.Size[shard] = byNS[ns].Size
	}
	plan := Plan(shards, []Collection{c}, Settings{ChunkSize: size})
	if len(plan) > 0 { // drain migrations come first
		out.Compliant, out.Violation = false, ViolationChunksImbalance
		if plan[0].Reason == Drain {
			out.Violation = ViolationDraining
		}
	}
	return out, nil
}

// collection is ns's entry, or NamespaceNotSharded.
func (b *Balancer) collection(ctx context.Context, ns string) (CollectionInfo, error) {
	all, err := b.opts.Cluster.Collections(ctx)
	if err != nil {
		return CollectionInfo{}, fmt.Errorf("balancer: reading the sharded collections: %w", err)
	}
	for _, c := range all {
		if c.CM.Collection().NS == ns {
			return c, nil
		}
	}
	return CollectionInfo{}, mongoerr.New(mongoerr.NamespaceNotSharded, "Collection %s is not sharded.", ns)
}
