package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg"
	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/iterx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// An aggregate on a sharded collection (MongoDB's sharded aggregation):
// the pipeline is split (pipeline_split.go); the targeted shards run the
// shards part, each as an aggregate with its shardVersion; the router
// runs the merge part with internal/agg over their cursors, merged in the
// split sort order or one after another, and serves the result as a
// router cursor (mergecursor.go). $lookup, $graphLookup and $unionWith
// in the merge part read their collections through the router itself
// (routerLookup), so these may be sharded or not.
//
// Memory: the router holds at most one batch per shard cursor (16 MB
// each) and what the merge part's blocking stages hold, bounded by
// agg's limits (internalDocumentSourceGroupMaxMemoryBytes and the
// others, set with setParameter on the router's process). Past a limit
// an aggregate without allowDiskUse fails with 292
// QueryExceededMemoryLimitNoDiskUseAllowed, as on a data node; with
// allowDiskUse the router spills to files under the operating system's
// temporary directory (it has no data directory), removed when the
// cursor is closed, exhausted or dropped for idleness.
//
// TODO(#15): a router spill directory of its own, cleared at start (a
// crashed router leaves agg-*.bson files in the temporary directory).
// Explain of a split pipeline is explain.go's.

// maxResultDocBytes is the largest document an aggregate may return.
const maxResultDocBytes = 16 * 1024 * 1024

// mergePipe is the merge part of a router cursor: agg's iterator over
// the shards' stream.
type mergePipe struct {
	it agg.Iterator
	// c is the request being served: the shards' getMores and the
	// lookups' reads run under it (set by pipeBatch, under the cursor's
	// lock).
	c       *call
	pending bson.D // read but not returned: it did not fit in the batch
	reads   bson.D // the aggregate's readConcern and readPreference, for lookups
}

// shardedAggregate runs a pipeline on a sharded collection. A pipeline
// whose leading $match targets one shard and that reads no other
// collection is passed through to that shard.
func (r *Router) shardedAggregate(c *call, ns string, cm *routing.ChunkManager) (bson.D, error) {
	pv, _ := bsonx.Get(c.cmd, "pipeline")
	pipeline, _ := pv.(bson.A)
	filter := leadingMatch(pipeline)
	if filter != nil && !readsOtherCollections(pipeline) {
		if shards, _ := cm.Target(c.targetable(filter)); len(shards) == 1 {
			reply, next, ok, err := r.singleShardRead(c, ns, cm, filter)
			if ok || err != nil {
				return reply, err
			}
			cm = next
		}
	}
	if malformedAggregate(c.cmd) { // the shards' parser answers, in its words
		return r.shardsVerdict(c, ns, cm)
	}
	sp, err := r.compileSplit(c)
	if err != nil {
		return nil, err
	}
	mc, reply, err := r.openShardsPart(c, ns, cm, filter, sp.plan)
	if mc == nil {
		return reply, err
	}
	mc.pipe = sp.pipe
	sp.pipe.it = sp.mergePart.Run(r.shardStream(mc, sp.pipe))
	if sp.out != nil || sp.merge != nil {
		return r.writeOutput(c, mc, sp.out, sp.merge)
	}
	return r.firstReply(c, mc, aggBatchSize(c.cmd), false)
}

// compiledSplit is an aggregate ready to run on a sharded collection.
type compiledSplit struct {
	plan      splitPlan
	mergePart *agg.Pipeline
	pipe      *mergePipe
	out       *agg.OutSpec   // a final $out, or nil
	merge     *agg.MergeSpec // a final $merge, or nil
}

// compileSplit validates the whole pipeline as a data node would (same
// errors), splits it and compiles the merge part; a $out to a sharded
// collection is refused here.
func (r *Router) compileSplit(c *call) (*compiledSplit, error) {
	pv, _ := bsonx.Get(c.cmd, "pipeline")
	pipeline, _ := pv.(bson.A)
	letVars, err := expr.EvalLet(docField(c.cmd, "let"), nil) // for $merge's let and pipeline
	if err != nil {
		return nil, err
	}
	sp := &compiledSplit{pipe: &mergePipe{c: c, reads: readOptions(c.cmd)}}
	stages, out, merge, err := agg.SplitOutput(pipeline, c.db, letVars)
	if err != nil {
		return nil, err
	}
	sp.out, sp.merge = out, merge
	if err := outReadConcern(c.cmd, out, merge); err != nil {
		return nil, err
	}
	env := r.mergeEnv(c, sp.pipe)
	if _, err := agg.Compile(stages, env); err != nil {
		return nil, err
	}
	sp.plan = splitPipeline(stages)
	if sp.mergePart, err = agg.Compile(sp.plan.merge, env); err != nil {
		return nil, err
	}
	if out != nil {
		if err := r.checkOutTarget(c, out); err != nil {
			return nil, err
		}
	}
	return sp, nil
}

// malformedAggregate reports a command whose pipeline or cursor field is
// missing or of the wrong type, or whose cursor.batchSize is not a
// non-negative number.
func malformedAggregate(cmd bson.D) bool {
	p, _ := bsonx.Get(cmd, "pipeline")
	cur, _ := bsonx.Get(cmd, "cursor")
	_, pipeOK := p.(bson.A)
	curDoc, curOK := cur.(bson.D)
	if bs, ok := bsonx.Get(curDoc, "batchSize"); ok {
		n, isNum := bsonx.AsFloat64(bs)
		curOK = curOK && isNum && n >= 0
	}
	return !pipeOK || !curOK
}

// shardsVerdict sends the command as it is to the shards and returns the
// first failure (or the first reply, its cursor killed).
func (r *Router) shardsVerdict(c *call, ns string, cm *routing.ChunkManager) (bson.D, error) {
	replies, _, err := r.readOnShards(c, ns, cm, nil, func(cm *routing.ChunkManager, s string) bson.D {
		return withVersion(c.cmd, cm, s)
	})
	if err != nil {
		return nil, err
	}
	r.killCursorsOf(c, replies)
	if reply, failed := firstError(replies); failed {
		return reply, nil
	}
	return replies[0].reply, nil
}

// leadingMatch is the filter of the pipeline's first stage when it is a
// $match (which targets the shards), else nil.
func leadingMatch(pipeline bson.A) bson.D {
	if len(pipeline) == 0 {
		return nil
	}
	if name, spec := stageOf(pipeline[0]); name == "$match" {
		f, _ := spec.(bson.D)
		return f
	}
	return nil
}

func aggBatchSize(cmd bson.D) int64 {
	if cur := docField(cmd, "cursor"); cur != nil {
		if v, ok := bsonx.Get(cur, "batchSize"); ok {
			n, _ := bsonx.AsInt64(v)
			return n
		}
	}
	return defaultBatch
}

// mergeEnv is the merge part's environment: the command's let, its
// allowDiskUse, lookups through the router.
func (r *Router) mergeEnv(c *call, p *mergePipe) agg.Env {
	return agg.Env{DB: c.db, Lookup: r.routerLookup(p), Let: docField(c.cmd, "let"), AllowDiskUse: truthy(c.cmd, "allowDiskUse"),
		Collator: c.collator()}
}

// openShardsPart sends the shards part to the targeted shards and returns
// a router cursor over their cursors. When a shard fails, mc is nil and
// its reply (or the error) is returned.
func (r *Router) openShardsPart(c *call, ns string, cm *routing.ChunkManager, filter bson.D, plan splitPlan) (*mergedCursor, bson.D, error) {
	shardBatch := int64(defaultBatch)
	if n, ok := limitAfter(plan.merge); ok && plan.sortSpec != nil {
		shardBatch = min(shardBatch, max(n, 1))
	}
	shardCmd := withoutField(setField(c.cmd, "pipeline", plan.shards), "writeConcern")
	shardCmd = setField(shardCmd, "cursor", bson.D{{Key: "batchSize", Value: shardBatch}})
	replies, _, err := r.readOnShards(c, ns, cm, filter, func(cm *routing.ChunkManager, s string) bson.D {
		return withVersion(shardCmd, cm, s)
	})
	if err != nil {
		return nil, nil, err
	}
	if reply, failed := firstError(replies); failed {
		r.killCursorsOf(c, replies)
		return nil, reply, nil
	}
	coll, _ := c.cmd[0].Value.(string)
	mc := &mergedCursor{ns: ns, coll: coll, sort: plan.sortSpec, limit: -1, collator: bsonColl(c.collator())}
	for _, sr := range replies {
		mc.remotes = append(mc.remotes, &remote{t: sr.t, host: sr.host, id: cursorID(sr.reply), buf: firstBatch(sr.reply)})
	}
	return mc, nil, nil
}

// shardStream yields the shards' documents: merged in mc.sort's order,
// or shard after shard.
func (r *Router) shardStream(mc *mergedCursor, p *mergePipe) agg.Iterator {
	return iterx.Func(func() (bson.D, bool, error) {
		lsid, _ := bsonx.Get(p.c.cmd, "lsid")
		if err := r.fill(p.c, mc, lsid); err != nil {
			return nil, false, err
		}
		rm := mc.nextRemote()
		if rm == nil {
			return nil, false, nil
		}
		doc := rm.buf[0]
		rm.buf = rm.buf[1:]
		return doc, true, nil
	}, func() error { return nil })
}

// pipeBatch returns the merge part's next documents for a batch of n
// (n < 0: as many as fit in 16 MB) and whether the pipeline is
// exhausted.
// REQUIRES: mc.mu.
func (r *Router) pipeBatch(c *call, mc *mergedCursor, n int64) ([]bson.D, bool, error) {
	p := mc.pipe
	p.c = c
	var out []bson.D
	size := 0
	for n < 0 || int64(len(out)) < n {
		doc := p.pending
		p.pending = nil
		if doc == nil {
			d, ok := p.it.Next()
			if !ok {
				if err := p.it.Err(); err != nil {
					return nil, false, err
				}
				return out, true, nil
			}
			doc = d
		}
		b, err := bsonx.Encode(doc)
		if err != nil {
			return nil, false, mongoerr.New(mongoerr.InternalError, "encoding an aggregation result: %v", err)
		}
		if len(b) > maxResultDocBytes {
			return nil, false, mongoerr.New(mongoerr.BSONObjectTooLarge, "BSONObj size: %d (0x%x) is invalid. Size must be between 0 and %d(16MB)", len(b), len(b), maxResultDocBytes)
		}
		if size += len(b); size > maxBatchBytes && len(out) > 0 {
			p.pending = doc
			return out, false, nil
		}
		out = append(out, doc)
	}
	return out, false, nil
}

// close ends the merge part (its lookups' cursors, its spill files).
func (p *mergePipe) close(c *call) {
	if p.it == nil {
		return
	}
	p.c = c
	_ = p.it.Close()
	p.it = nil
}

// closeIdlePipe ends the merge part of a cursor dropped for idleness
// (its spill files, its lookups' cursors).
func (mc *mergedCursor) closeIdlePipe() {
	mc.mu.Lock()
	defer mc.mu.Unlock()
	mc.pipe.close(mc.pipe.c)
}

// replyError is the error of an ok:0 reply, nil for ok:1.
func replyError(reply bson.D) error {
	if ok, _ := bsonx.Get(reply, "ok"); truthyValue(ok) {
		return nil
	}
	code, _ := bsonx.Get(reply, "code")
	n, _ := bsonx.AsInt64(code)
	msg, _ := bsonx.Get(reply, "errmsg")
	s, _ := msg.(string)
	return mongoerr.New(mongoerr.Code(n), "%s", s)
}

func truthyValue(v any) bool {
	if b, ok := v.(bool); ok {
		return b
	}
	f, ok := bsonx.AsFloat64(v)
	return ok && f != 0
}
