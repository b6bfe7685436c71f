package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// A single-document update, delete or findAndModify whose filter does not
// pin the shard key and reaches several shards is a two-phase write, as
// MongoDB 7.0's _clusterQueryWithoutShardKey and
// _clusterWriteWithoutShardKey:
//
//  1. every targeted shard is asked, in parallel, for its first matching
//     document (a find with the filter, the sort of findAndModify, the
//     collation, hint and let; limit 1); the router keeps the first in
//     sort order (without a sort: the first shard's in shard id order);
//  2. the write goes to that document's shard with the filter narrowed to
//     it ({_id, each shard key field, $and: [filter]}) and the shard's
//     version; if it matches nothing (the document changed, moved or went
//     away meanwhile) phase 1 runs again, at most
//     maxWithoutShardKeyAttempts times. An upsert (any single-document
//     upsert whose filter does not pin the key, as in MongoDB 7.0) that
//     found nothing goes to the first targeted shard with its filter: a
//     document that belongs elsewhere comes back as
//     WouldChangeOwningShard and is inserted on its owner (a retryable
//     write; otherwise IllegalOperation, where MongoDB 7.0 would use an
//     internal transaction).
//
// The narrowed filter pins the whole shard key, so a shard accepts an
// update of the key in it (MongoDB's
// $_allowShardKeyUpdatesWithoutFullShardKeyInQuery).
//
// A retryable write carries the client's lsid, txnNumber and stmtId on
// the phase-2 write. Before phase 1, every targeted shard is asked whether
// it already ran that statement: the statement is sent with a filter that
// matches nothing, so a shard that ran it answers from its retryable-write
// record and one that did not changes nothing. A retry therefore applies
// once even when the document it changed no longer matches the filter.
//
// Weaker than MongoDB, which runs both phases in one internal transaction:
// two concurrent attempts of the same retryable statement (a retry racing
// its original) may each pass the check and change a document each; a
// document changed between the phases is not written (phase 1 runs again)
// rather than serialised. TODO(#14): run both phases in one internal
// transaction once the router has cross-shard transactions (and drop the
// executed-statement check, which costs a round trip to every targeted
// shard for each retryable write without shard key).

// maxWithoutShardKeyAttempts bounds phase 1 runs of one statement.
const maxWithoutShardKeyAttempts = 10

// matchNothing is a filter no document matches (the executed-statement
// check, which also turns upsert off).
var matchNothing = bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: bson.A{}}}}}

// noUpsert turns off the upsert field of a statement or command.
func noUpsert(d bson.D) bson.D {
	if _, has := bsonx.Get(d, "upsert"); has {
		return setField(d, "upsert", false)
	}
	return d
}

// targetQuery is what phase 1 asks each shard for.
type targetQuery struct {
	filter, sort bson.D
	opts         bson.D // collation, hint, let: passed on as given
}

// statementQuery is phase 1's query for statement stmt of cmd.
func statementQuery(cmd, stmt bson.D, filterField string) targetQuery {
	tq := targetQuery{filter: docField(stmt, filterField), sort: docField(stmt, "sort")}
	for _, name := range []string{"collation", "hint"} {
		if v, ok := bsonx.Get(stmt, name); ok {
			tq.opts = append(tq.opts, bson.E{Key: name, Value: v})
		}
	}
	if v, ok := bsonx.Get(cmd, "let"); ok {
		tq.opts = append(tq.opts, bson.E{Key: "let", Value: v})
	}
	return tq
}

// findTarget runs phase 1: the document to write and its shard; doc is
// nil when no shard has a match.
func (r *Router) findTarget(c *call, ns string, cm *routing.ChunkManager, tq targetQuery) (bson.D, string, *routing.ChunkManager, error) {
	coll, _ := c.cmd[0].Value.(string)
	for attempt := 0; ; attempt++ {
		shards, _ := cm.Target(routing.ForCollation(tq.filter, docField(tq.opts, "collation")))
		replies := r.sendAll(c, shards, false, func(s string) bson.D {
			find := bson.D{{Key: "find", Value: coll}, {Key: "filter", Value: tq.filter}}
			if len(tq.sort) > 0 {
				find = append(find, bson.E{Key: "sort", Value: tq.sort})
			}
			find = append(append(find, tq.opts...), bson.E{Key: "limit", Value: int64(1)}, bson.E{Key: "singleBatch", Value: true})
			return withVersion(find, cm, s)
		})
		doc, shard, stale, err := r.pickTarget(replies, tq.sort)
		if !stale {
			return doc, shard, cm, err
		}
		if cm, err = r.refreshAfterStale(c.ctx, ns, cm, attempt); err != nil {
			return nil, "", cm, err
		}
	}
}

// pickTarget chooses among the shards' first documents: the first in sort
// order, ties and no sort going to the lowest shard id (replies follow
// the sorted shard list).
func (r *Router) pickTarget(replies []shardReply, sortSpec bson.D) (doc bson.D, shard string, stale bool, err error) {
	for _, sr := range replies {
		if r.staleAt(sr) >= 0 {
			return nil, "", true, nil
		}
		if sr.err != nil {
			return nil, "", false, sr.err
		}
		batch := firstBatch(sr.reply)
		if len(batch) == 0 {
			continue
		}
		if doc == nil || (len(sortSpec) > 0 && compareBySort(batch[0], doc, sortSpec) < 0) {
			doc, shard = batch[0], sr.shard
		}
	}
	return doc, shard, false, nil
}

// narrowFilter pins filter to doc: its _id and shard key values (the raw
// values; a missing field is null), and the filter itself.
func narrowFilter(p key.Pattern, filter, doc bson.D) bson.D {
	id, _ := bsonx.Get(doc, "_id")
	out := bson.D{{Key: "_id", Value: id}}
	for _, f := range p.Fields() {
		if f.Path == "_id" {
			continue
		}
		v, _ := key.Lookup(doc, f.Path)
		out = append(out, bson.E{Key: f.Path, Value: v})
	}
	if len(filter) > 0 {
		out = append(out, bson.E{Key: "$and", Value: bson.A{filter}})
	}
	return out
}

// writeWithoutShardKey runs update or delete statement i of b as a
// two-phase write; the result is absorbed into res under index i.
func (r *Router) writeWithoutShardKey(c *call, ns string, cm *routing.ChunkManager, b batch, i int, res *writeResult) (*routing.ChunkManager, error) {
	stmt, _ := b.items[i].(bson.D)
	one := func(q bson.D) (bson.A, []int32) {
		var ids []int32
		if b.ids != nil {
			ids = []int32{b.ids[i]}
		}
		return bson.A{setField(stmt, "q", q)}, ids
	}
	if retryableWrite(c.cmd) {
		_, ids := one(nil)
		items := bson.A{noUpsert(setField(stmt, "q", matchNothing))}
		done, reply, err := r.alreadyRan(c, ns, cm, docField(stmt, "q"), func(s string, cm *routing.ChunkManager) bson.D {
			return withVersion(piece(c.cmd, b.field, items, []int{0}, ids), cm, s)
		}, func(reply bson.D) bool { return int64Field(reply, "n") > 0 })
		if err != nil || done {
			if done {
				res.absorb(reply, []int{i})
			}
			return cm, err
		}
	}
	tq := statementQuery(c.cmd, stmt, "q")
	for attempt := 0; attempt < maxWithoutShardKeyAttempts; attempt++ {
		doc, shard, next, err := r.findTarget(c, ns, cm, tq)
		cm = next
		if err != nil || (doc == nil && !truthy(stmt, "upsert")) {
			return cm, err // no match: n 0
		}
		items, ids := one(tq.filter)
		if doc != nil {
			items, ids = one(narrowFilter(cm.Pattern(), tq.filter, doc))
		} else if shard = firstShard(cm, tq.filter); shard == "" {
			return cm, mongoerr.New(mongoerr.ShardKeyNotFound, "upsert on %s targets no shard", ns)
		}
		sr := r.send(c, shard, withVersion(piece(c.cmd, b.field, items, []int{0}, ids), cm, shard), false)
		if r.staleAt(sr) >= 0 {
			if cm, err = r.refreshAfterStale(c.ctx, ns, cm, attempt); err != nil {
				return cm, err
			}
			continue
		}
		if sr.err != nil {
			return cm, sr.err
		}
		if int64Field(sr.reply, "n") > 0 || len(writeErrors(sr.reply)) > 0 {
			res.absorb(sr.reply, []int{i})
			return cm, nil
		}
	}
	return cm, changedMeanwhile(ns)
}

func changedMeanwhile(ns string) error {
	return mongoerr.New(mongoerr.WriteConflict,
		"the document chosen for a single-document write without shard key on %s changed %d times before it could be written",
		ns, maxWithoutShardKeyAttempts)
}

// alreadyRan sends probe(shard) (the statement with a filter matching
// nothing, carrying the client's statement id) to every shard filter
// targets and reports the reply of one that answered from its
// retryable-write record (ran says so).
func (r *Router) alreadyRan(c *call, ns string, cm *routing.ChunkManager, filter bson.D,
	probe func(shard string, cm *routing.ChunkManager) bson.D, ran func(bson.D) bool) (bool, bson.D, error) {
	for attempt := 0; ; attempt++ {
		shards, _ := cm.Target(filter)
		replies := r.sendAll(c, shards, false, func(s string) bson.D { return probe(s, cm) })
		stale := false
		for _, sr := range replies {
			switch {
			case r.staleAt(sr) >= 0:
				stale = true
			case sr.err != nil:
				return false, nil, sr.err
			case ran(sr.reply):
				return true, sr.reply, nil
			}
		}
		if !stale {
			return false, nil, nil
		}
		var err error
		if cm, err = r.refreshAfterStale(c.ctx, ns, cm, attempt); err != nil {
			return false, nil, err
		}
	}
}

// findAndModifyWithoutShardKey runs findAndModify as a two-phase write
// (its sort choosing among the shards' first documents).
func (r *Router) findAndModifyWithoutShardKey(c *call, ns string, cm *routing.ChunkManager) (bson.D, error) {
	if retryableWrite(c.cmd) {
		done, reply, err := r.alreadyRan(c, ns, cm, docField(c.cmd, "query"), func(s string, cm *routing.ChunkManager) bson.D {
			return withVersion(noUpsert(setField(c.cmd, "query", matchNothing)), cm, s)
		}, famMatched)
		if err != nil || done {
			return reply, err
		}
	}
	tq := statementQuery(c.cmd, c.cmd, "query")
	for attempt := 0; attempt < maxWithoutShardKeyAttempts; attempt++ {
		doc, shard, next, err := r.findTarget(c, ns, cm, tq)
		cm = next
		if err != nil {
			return nil, err
		}
		cmd := c.cmd
		if doc != nil {
			cmd = setField(c.cmd, "query", narrowFilter(cm.Pattern(), tq.filter, doc))
		} else if shard = firstShard(cm, tq.filter); shard == "" {
			return nil, mongoerr.New(mongoerr.ShardKeyNotFound, "findAndModify on %s targets no shard", ns)
		}
		sr := r.send(c, shard, withVersion(cmd, cm, shard), retryableWrite(c.cmd))
		if r.staleAt(sr) >= 0 {
			if cm, err = r.refreshAfterStale(c.ctx, ns, cm, attempt); err != nil {
				return nil, err
			}
			continue
		}
		if doc == nil || sr.err != nil || famMatched(sr.reply) {
			return r.findAndModifyReply(c, ns, cm, sr)
		}
	}
	return nil, changedMeanwhile(ns)
}

// firstShard is the first shard filter targets ("" for none): a
// findAndModify matching nothing is answered by one shard, as MongoDB's
// null value.
func firstShard(cm *routing.ChunkManager, filter bson.D) string {
	shards, _ := cm.Target(filter)
	if len(shards) == 0 {
		return ""
	}
	return shards[0]
}

// famMatched reports a findAndModify reply that found a document.
func famMatched(reply bson.D) bool {
	return int64Field(docField(reply, "lastErrorObject"), "n") > 0
}
