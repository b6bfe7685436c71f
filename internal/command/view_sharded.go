package command

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Views over sharded collections. A shard holds only its chunks of a
// sharded collection, so it cannot answer a read of a view on one: as
// MongoDB's shard does, it answers CommandOnShardedViewNotSupportedOnMongod
// (169) with resolvedView {ns, pipeline} (the collection under the view
// chain and the chain's pipelines, innermost first), and the router re-runs
// the read as an aggregate of that collection over every shard it targets
// (internal/shard/router/views.go).
//
// Invariant: a node that is not a shard, or a shard whose metadata says the
// view's collection is unsharded, reads the view itself; only find, count,
// distinct, aggregate and their explain reach this check (Ctx.view).

// ShardedChecker is implemented by a shard's ShardVersioner
// (shardsvr.State): whether a namespace is a sharded collection.
type ShardedChecker interface {
	IsSharded(ctx context.Context, ns string) (bool, error)
}

// resolvedViewError is 169 with its ErrorExtraInfo, resolvedView.
type resolvedViewError struct {
	err  *mongoerr.Error
	info bson.D
}

func (e *resolvedViewError) Error() string     { return e.err.Error() }
func (e *resolvedViewError) Unwrap() error     { return e.err }
func (e *resolvedViewError) ExtraInfo() bson.D { return e.info }

// shardedView returns 169 when this node is a shard and def's collection
// is sharded; nil otherwise.
func (c *Ctx) shardedView(def *viewDef) error {
	chk, ok := c.D.shardVersioner.(ShardedChecker)
	if !ok || def == nil {
		return nil
	}
	ctx, cancel := c.replContext()
	defer cancel()
	sharded, err := chk.IsSharded(ctx, c.ns(def.source))
	if err != nil {
		return err
	}
	if !sharded {
		return nil
	}
	pipeline := def.pipeline
	if pipeline == nil {
		pipeline = bson.A{}
	}
	return &resolvedViewError{
		err:  mongoerr.New(mongoerr.CommandOnShardedViewNotSupportedOnMongod, "Resolved views on sharded collections must be executed by mongos"),
		info: bson.D{{Key: "resolvedView", Value: bson.D{{Key: "ns", Value: c.ns(def.source)}, {Key: "pipeline", Value: pipeline}}}},
	}
}
