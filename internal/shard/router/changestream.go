package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Change streams through the router: a stream on an unsharded collection
// is its primary shard's (forwarded like any aggregate, its cursor's
// getMores too, replies unchanged, postBatchResumeToken included).
// Streams on a sharded collection, a database or the cluster merge the
// shards' streams (changestream_merge.go).

// routeChangeStream opens the merged streams; handled is false for every
// other command (and for a stream on an unsharded collection, which is
// forwarded).
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
	if cm != nil {
		p := cm.Pattern()
		reply, err := r.openMergedStream(c, coll, &p)
		return reply, true, err
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
