package router

import (
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// routeCollStats serves an aggregate whose first stage is $collStats, as
// mongos does: the stage runs on every shard owning a chunk of a sharded
// collection (on the primary shard of an unsharded one, on the config
// servers for admin and config), each result gets the shard's name
// (`shard`, after `ns`), and the rest of the pipeline runs here over those
// few documents (one per shard). handled is false for any other command.
// $shardedDataDistribution (datadistribution.go) and the collStats
// command (collstatscmd.go) are served from here too.
func (r *Router) routeCollStats(c *call) (reply bson.D, handled bool, err error) {
	if reply, handled, err := r.routeDataDistribution(c); handled {
		return reply, true, err
	}
	if reply, handled, err := r.routeCurrentOp(c); handled { // currentop.go
		return reply, true, err
	}
	if reply, handled, err := r.routeCollStatsCommand(c); handled {
		return reply, true, err
	}
	coll, stage, rest, ok := collStatsAggregate(c)
	if !ok {
		return nil, false, nil
	}
	if err := notInTransaction(c, "Aggregation stage $collStats"); err != nil {
		return nil, true, err
	}
	cmd := bson.D{
		{Key: "aggregate", Value: coll},
		{Key: "pipeline", Value: bson.A{stage}},
		{Key: "cursor", Value: bson.D{}},
	}
	if rc, has := bsonx.Get(c.cmd, "readConcern"); has {
		cmd = append(cmd, bson.E{Key: "readConcern", Value: rc})
	}
	replies, err := r.collStatsOnShards(c, c.db+"."+coll, cmd)
	if err != nil {
		return nil, true, err
	}
	docs := make([]bson.D, 0, len(replies))
	for _, sr := range replies {
		if sr.err != nil {
			return nil, true, sr.err
		}
		batch, _, err := firstBatchOf(sr.reply)
		if err != nil {
			return nil, true, err
		}
		for _, d := range batch {
			docs = append(docs, withShard(d, sr.shard))
		}
	}
	if docs, err = runRest(c.db, rest, docs); err != nil {
		return nil, true, err
	}
	return r.gossip(collStatsReply(c.db+"."+coll, docs)), true, nil
}

// collStatsAggregate recognises {aggregate: "coll", pipeline:
// [{$collStats: ...}, ...]} without explain, returning the stage and the
// stages after it.
func collStatsAggregate(c *call) (coll string, stage bson.D, rest bson.A, ok bool) {
	if c.name != "aggregate" {
		return "", nil, nil, false
	}
	if coll, ok = c.cmd[0].Value.(string); !ok || coll == "" {
		return "", nil, nil, false
	}
	if _, explain := bsonx.Get(c.cmd, "explain"); explain {
		return "", nil, nil, false
	}
	v, _ := bsonx.Get(c.cmd, "pipeline")
	stages, _ := v.(bson.A)
	if len(stages) == 0 {
		return "", nil, nil, false
	}
	stage, _ = stages[0].(bson.D)
	if len(stage) != 1 || stage[0].Key != "$collStats" {
		return "", nil, nil, false
	}
	return coll, stage, stages[1:], true
}

// collStatsOnShards sends cmd to the shards holding ns: those owning a
// chunk when it is sharded, else its database's shard (targetOf).
func (r *Router) collStatsOnShards(c *call, ns string, cmd bson.D) ([]shardReply, error) {
	cm, err := r.catalog.get(c.ctx, ns)
	if err != nil {
		return nil, err
	}
	if cm != nil {
		shards := cm.Shards()
		slices.Sort(shards)
		return r.sendAll(c, shards, true, func(string) bson.D { return cmd }), nil
	}
	t, err := r.targetOf(c)
	if err != nil {
		return nil, err
	}
	reply, _, err := t.set.RunOnPrimary(c.ctx, c.db, cmd, true)
	r.observeClusterTime(reply)
	return []shardReply{{shard: t.id, t: t, reply: reply, err: err}}, nil
}

// firstBatchOf reads a shard's one-batch aggregate reply.
func firstBatchOf(reply bson.D) ([]bson.D, int64, error) {
	cur, _ := bsonx.Get(reply, "cursor")
	cd, ok := cur.(bson.D)
	if !ok {
		return nil, 0, mongoerr.New(mongoerr.InternalError, "a shard's $collStats reply has no cursor")
	}
	idv, _ := bsonx.Get(cd, "id")
	id, _ := bsonx.AsInt64(idv)
	fb, _ := bsonx.Get(cd, "firstBatch")
	arr, _ := fb.(bson.A)
	out := make([]bson.D, 0, len(arr))
	for _, v := range arr {
		if d, ok := v.(bson.D); ok {
			out = append(out, d)
		}
	}
	return out, id, nil
}

// withShard returns d with shard set right after ns (a copy).
func withShard(d bson.D, shard string) bson.D {
	out := make(bson.D, 0, len(d)+1)
	placed := false
	for _, e := range d {
		if e.Key == "shard" {
			continue
		}
		out = append(out, e)
		if e.Key == "ns" {
			out, placed = append(out, bson.E{Key: "shard", Value: shard}), true
		}
	}
	if !placed {
		out = append(bson.D{{Key: "shard", Value: shard}}, out...)
	}
	return out
}

// runRest runs the stages after $collStats over the shards' documents.
// Stages that read other collections ($lookup, $unionWith) find none.
// TODO(#14): run $lookup/$unionWith/$out after $collStats through the router.
func runRest(db string, rest bson.A, docs []bson.D) ([]bson.D, error) {
	if len(rest) == 0 {
		return docs, nil
	}
	p, err := agg.Compile(rest, agg.Env{DB: db})
	if err != nil {
		return nil, err
	}
	return agg.Drain(p.Run(agg.Slice(docs)))
}

// collStatsReply is a finished cursor holding docs (a handful: one per
// shard, so one batch).
func collStatsReply(ns string, docs []bson.D) bson.D {
	batch := make(bson.A, len(docs))
	for i, d := range docs {
		batch[i] = d
	}
	return bson.D{
		{Key: "cursor", Value: bson.D{{Key: "firstBatch", Value: batch}, {Key: "id", Value: int64(0)}, {Key: "ns", Value: ns}}},
		{Key: "ok", Value: 1.0},
	}
}

// notInTransaction refuses the statistics commands inside a multi-document
// transaction, as MongoDB does.
func notInTransaction(c *call, what string) error {
	if txnKey(c.cmd) == "" {
		return nil
	}
	return mongoerr.New(mongoerr.OperationNotSupportedInTransaction, "%s cannot run within a multi-document transaction", what)
}
