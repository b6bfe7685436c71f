package command

import (
	"context"
	"slices"
	"time"
)

// RouterLister is implemented by a shard's ShardVersioner (shardsvr.State):
// the cluster's routers as config.mongos lists them on the config servers.
type RouterLister interface {
	RouterHosts(ctx context.Context, limit int) ([]string, error)
}

// shardRoutersRetry is how soon a shard asks again after a failed read
// (its identity unknown yet, config servers unreachable).
const shardRoutersRetry = 5 * time.Second

// refreshShardRouters keeps a shard's copy of the routers' hosts, which
// alwaysAllowMembers lets in: re-read from the config servers every
// memberResolveInterval, outside st.mu (it is a network read). next is
// when to read again.
func (d *Dispatcher) refreshShardRouters(st *allowlistState, next *time.Time) {
	rl, ok := d.shardVersioner.(RouterLister)
	if !ok || d.info.ClusterRole != "shardsvr" || time.Now().Before(*next) {
		return
	}
	ctx, cancel := context.WithTimeout(d.shutdownContext(), memberLookupBudget)
	defer cancel()
	hosts, err := rl.RouterHosts(ctx, maxClusterDocs)
	if err != nil {
		*next = time.Now().Add(shardRoutersRetry)
		d.log.Debug("IP allowlist: cannot read the routers from the config servers", "err", err)
		return
	}
	*next = time.Now().Add(memberResolveInterval)
	slices.Sort(hosts)
	st.mu.Lock()
	defer st.mu.Unlock()
	if !slices.Equal(hosts, st.mu.shardRouters) {
		st.mu.shardRouters, st.mu.clusterOK = hosts, false
	}
}
