package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Change streams through the router: a stream on an unsharded collection
// is its primary shard's (forwarded like any aggregate, its cursor's
// getMores too, replies unchanged, postBatchResumeToken included).
// Streams on a sharded collection, a database or the cluster would need
// the shards' streams merged by clusterTime; they are refused.
// TODO(#14): merge the shards' streams (ordered by clusterTime, then
// resume token) for sharded collections, databases and the cluster.

// routeChangeStream refuses the change streams the router cannot serve
// yet; handled is false for every other command (and for a stream on an
// unsharded collection, which is forwarded).
func (r *Router) routeChangeStream(c *call) (reply bson.D, handled bool, err error) {
	if c.name != "aggregate" || !opensChangeStream(c.cmd) {
		return nil, false, nil
	}
	coll, ok := c.cmd[0].Value.(string)
	if !ok || coll == "" {
		return nil, true, mongoerr.New(mongoerr.NotImplemented,
			"relaydb's router does not support change streams on a database or the cluster yet; watch a collection")
	}
	cm, err := r.catalog.get(c.ctx, c.db+"."+coll)
	if err != nil {
		return nil, true, err
	}
	if cm != nil {
		return nil, true, mongoerr.New(mongoerr.NotImplemented,
			"relaydb's router does not support change streams on a sharded collection (%s.%s) yet", c.db, coll)
	}
	return nil, false, nil
}

// opensChangeStream reports an aggregate whose pipeline opens with
// $changeStream.
func opensChangeStream(cmd bson.D) bool {
	v, _ := bsonx.Get(cmd, "pipeline")
	p, _ := v.(bson.A)
	if len(p) == 0 {
		return false
	}
	first, _ := p[0].(bson.D)
	return len(first) > 0 && first[0].Key == "$changeStream"
}
