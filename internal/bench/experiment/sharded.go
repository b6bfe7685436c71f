package experiment

import (
	"context"
	"os"

	"github.com/relaydb/relaydb/internal/cluster"
)

// UpSharded starts spec's sharded cluster, and a second time in a fresh
// spec.Dir when the first start fails and ctx is not done: a free port
// picked for a member can be taken by another process before the member
// binds it, and a second start picks new ports. retried, when not nil,
// hears the first start's error.
func UpSharded(ctx context.Context, spec cluster.ShardedSpec, retried func(error)) (*cluster.Sharded, error) {
	sc, err := cluster.UpSharded(ctx, spec)
	if err != nil && ctx.Err() == nil {
		if retried != nil {
			retried(err)
		}
		_ = os.RemoveAll(spec.Dir)
		sc, err = cluster.UpSharded(ctx, spec)
	}
	return sc, err
}
