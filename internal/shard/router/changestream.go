package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Change streams through the router: every stream (on a collection,
// sharded or not, a database or the cluster) merges the streams of every
// shard (changestream_merge.go), as mongos's: a collection sharded after
// the stream opened, and its chunks moved, stay watched. The explain of a
// stream on an unsharded collection is its primary shard's.

// routeChangeStream opens the merged streams; handled is false for every
// other command.
func (r *Router) routeChangeStream(c *call) (reply bson.D, handled bool, err error) {
	if c.name != "aggregate" || !opensChangeStream(c.cmd) {
		return nil, false, nil
	}
	coll, ok := c.cmd[0].Value.(string)
	if !ok || coll == "" {
		if v, isNum := bsonx.AsInt64(c.cmd[0].Value); !isNum || v != 1 {
			return nil, true, mongoerr.New(mongoerr.InvalidNamespace, "{aggregate: 1} is the only numeric aggregate target")
		}
		reply, err := r.openMergedStream(c, "", nil)
		return reply, true, err
	}
	cm, err := r.catalog.get(c.ctx, c.db+"."+coll)
	if err != nil {
		return nil, true, err
	}
	if cm == nil {
		if _, explain := bsonx.Get(c.cmd, "explain"); explain {
			return nil, false, nil // the primary shard explains it
		}
		// As mongos: every shard, so the stream goes on when the
		// collection is sharded later and chunks move.
		reply, err := r.openMergedStream(c, coll, nil)
		return reply, true, err
	}
	p := cm.Pattern()
	reply, err = r.openMergedStream(c, coll, &p)
	return reply, true, err
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
