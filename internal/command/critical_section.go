package command

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// defaultLease is a critical section's lease when the router gives none.
const defaultLease = 30 * time.Second

// shardsvrCriticalSection enters or exits a namespace's critical section
// on a shard (ShardOpGuard); on any other node it is
// ShardingStateNotInitialized, as a shard command on a non-shard is.
func shardsvrCriticalSection(c *Ctx, r *request.ShardsvrCriticalSection) (bson.D, error) {
	g, ok := c.D.shardVersioner.(ShardOpGuard)
	if !ok {
		return nil, mongoerr.New(mongoerr.ShardingStateNotInitialized, "_shardsvrCriticalSection needs a shard (--shardsvr)")
	}
	switch r.Action {
	case "enter":
		lease := defaultLease
		if r.LeaseMillis != nil {
			lease = time.Duration(*r.LeaseMillis) * time.Millisecond
		}
		ctx, cancel := c.replContext()
		defer cancel()
		if err := g.EnterCriticalSection(ctx, r.NS, lease); err != nil {
			return nil, err
		}
	case "exit":
		g.ExitCriticalSection(r.NS)
	default:
		return nil, mongoerr.New(mongoerr.BadValue, "_shardsvrCriticalSection action must be \"enter\" or \"exit\", not %q", r.Action)
	}
	return bson.D{}, nil
}
