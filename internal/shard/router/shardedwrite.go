package router

import (
	"slices"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// writeResult accumulates a write command's reply with the client's
// statement indexes.
type writeResult struct {
	n, nModified int64
	upserted     []bson.D
	errs         []bson.D
	wce          any
}

func (w *writeResult) addError(index int, err error) {
	me := mongoerr.From(err)
	w.errs = append(w.errs, bson.D{{Key: "index", Value: int32(index)}, {Key: "code", Value: int32(me.Code)},
		{Key: "codeName", Value: me.Code.Name()}, {Key: "errmsg", Value: me.Msg}})
}

// absorb adds a shard's write reply whose statement i stands for the
// client's statement idx[i]; write errors at or after skipFrom (a
// StaleConfig being retried) are left out, as is their n.
func (w *writeResult) absorb(reply bson.D, idx []int) {
	w.n += int64Field(reply, "n")
	w.nModified += int64Field(reply, "nModified")
	if v, ok := bsonx.Get(reply, "upserted"); ok {
		arr, _ := v.(bson.A)
		for _, e := range arr {
			d, _ := e.(bson.D)
			i := int(int64Field(d, "index"))
			id, _ := bsonx.Get(d, "_id")
			if i < len(idx) {
				w.upserted = append(w.upserted, bson.D{{Key: "index", Value: int32(idx[i])}, {Key: "_id", Value: id}})
			}
		}
	}
	for _, we := range writeErrors(reply) {
		i := int(int64Field(we, "index"))
		if i < len(idx) && errCode(we) != int64(mongoerr.StaleConfig) {
			w.errs = append(w.errs, setField(we, "index", int32(idx[i])))
		}
	}
	if wce, ok := bsonx.Get(reply, "writeConcernError"); ok && w.wce == nil {
		w.wce = wce
	}
}

func (w *writeResult) reply(withModified bool) bson.D {
	out := bson.D{{Key: "n", Value: int32(w.n)}}
	if withModified {
		out = append(out, bson.E{Key: "nModified", Value: int32(w.nModified)})
	}
	if len(w.upserted) > 0 {
		sort.SliceStable(w.upserted, func(i, j int) bool {
			return int64Field(w.upserted[i], "index") < int64Field(w.upserted[j], "index")
		})
		arr := make(bson.A, len(w.upserted))
		for i, u := range w.upserted {
			arr[i] = u
		}
		out = append(out, bson.E{Key: "upserted", Value: arr})
	}
	if len(w.errs) > 0 {
		sort.SliceStable(w.errs, func(i, j int) bool { return int64Field(w.errs[i], "index") < int64Field(w.errs[j], "index") })
		arr := make(bson.A, len(w.errs))
		for i, e := range w.errs {
			arr[i] = e
		}
		out = append(out, bson.E{Key: "writeErrors", Value: arr})
	}
	if w.wce != nil {
		out = append(out, bson.E{Key: "writeConcernError", Value: w.wce})
	}
	return append(out, bson.E{Key: "ok", Value: 1.0})
}

// ordered reads a write command's ordered (default true).
func ordered(cmd bson.D) bool {
	v, ok := bsonx.Get(cmd, "ordered")
	if !ok {
		return true
	}
	b, isBool := v.(bool)
	return !isBool || b
}

// stmtIDs returns the client's statement ids (its stmtIds, or the
// statement indexes) when cmd is a retryable write, nil otherwise: each
// piece sent to a shard names its statements by the client's ids, so a
// retried piece is recognised statement by statement.
func stmtIDs(cmd bson.D, n int) []int32 {
	if _, ok := bsonx.Get(cmd, "txnNumber"); !ok {
		return nil
	}
	ids := make([]int32, n)
	v, given := bsonx.Get(cmd, "stmtIds")
	arr, _ := v.(bson.A)
	for i := range ids {
		ids[i] = int32(i)
		if given && i < len(arr) {
			if x, ok := bsonx.AsInt64(arr[i]); ok {
				ids[i] = int32(x)
			}
		}
	}
	if s, ok := bsonx.Get(cmd, "stmtId"); ok && !given {
		if x, ok := bsonx.AsInt64(s); ok {
			for i := range ids {
				ids[i] = int32(x) + int32(i)
			}
		}
	}
	return ids
}

// piece is cmd restricted to the statements idx of its array field.
func piece(cmd bson.D, field string, all bson.A, idx []int, ids []int32) bson.D {
	arr := make(bson.A, len(idx))
	for i, j := range idx {
		arr[i] = all[j]
	}
	out := setField(withoutField(cmd, "stmtId"), field, arr)
	if ids != nil {
		st := make(bson.A, len(idx))
		for i, j := range idx {
			st[i] = ids[j]
		}
		out = setField(out, "stmtIds", st)
	}
	return out
}

// shardedInsert splits the documents by owning shard. Ordered inserts send
// runs of consecutive documents for one shard in turn and stop at the
// first error (MongoDB's ordered batching); unordered ones send one batch
// per shard in parallel. n and writeErrors use the client's indexes.
func (r *Router) shardedInsert(c *call, ns string, cm *routing.ChunkManager) (bson.D, error) {
	v, _ := bsonx.Get(c.cmd, "documents")
	docs, _ := v.(bson.A)
	ids := stmtIDs(c.cmd, len(docs))
	var res writeResult
	owner := func(cm *routing.ChunkManager, i int) (string, error) {
		d, _ := docs[i].(bson.D)
		return cm.ShardFor(d)
	}
	if ordered(c.cmd) {
		next, attempt := 0, 0
		for next < len(docs) {
			shard, err := owner(cm, next)
			if err != nil {
				res.addError(next, err)
				break
			}
			run := []int{next}
			for j := next + 1; j < len(docs); j++ {
				s, err := owner(cm, j)
				if err != nil || s != shard {
					break
				}
				run = append(run, j)
			}
			sr := r.send(c, shard, withVersion(piece(c.cmd, "documents", docs, run, ids), cm, shard), false)
			if stale := r.staleAt(sr); stale >= 0 {
				res.absorb(sr.reply, run[:stale])
				if cm, err = r.refreshAfterStale(c.ctx, ns, cm, attempt); err != nil {
					res.addError(run[stale], err)
					break
				}
				attempt++
				next = run[stale]
				continue
			}
			if sr.err != nil {
				res.addError(run[0], sr.err)
				break
			}
			res.absorb(sr.reply, run)
			if len(writeErrors(sr.reply)) > 0 {
				break
			}
			next = run[len(run)-1] + 1
		}
		return res.reply(false), nil
	}
	pending := make([]int, len(docs))
	for i := range pending {
		pending[i] = i
	}
	r.sendUnordered(c, ns, cm, "documents", docs, ids, pending, &res, func(cm *routing.ChunkManager, i int) (string, bool, error) {
		s, err := owner(cm, i)
		return s, true, err
	})
	return res.reply(false), nil
}

// staleAt returns the index of the first statement of a piece a shard
// refused with StaleConfig (0 for a command error), -1 when it did not.
// sendUnordered sends the pending statements (indexes into items, the
// command's field) to their shards in parallel, round after round until
// none came back stale, refreshing the routing table in between. owner
// names a statement's shard; ok false hands the statement back in rest
// (it is no longer targeted by its key), an error is its write error.
// It returns the routing table it ended with.
func (r *Router) sendUnordered(c *call, ns string, cm *routing.ChunkManager, field string, items bson.A, ids []int32,
	pending []int, res *writeResult, owner func(*routing.ChunkManager, int) (string, bool, error)) (*routing.ChunkManager, []int) {
	var rest []int
	for attempt := 0; len(pending) > 0; attempt++ {
		byShard := map[string][]int{}
		var shards []string
		for _, i := range pending {
			s, ok, err := owner(cm, i)
			switch {
			case err != nil:
				res.addError(i, err)
				continue
			case !ok:
				rest = append(rest, i)
				continue
			}
			if _, seen := byShard[s]; !seen {
				shards = append(shards, s)
			}
			byShard[s] = append(byShard[s], i)
		}
		replies := r.sendAll(c, shards, false, func(s string) bson.D {
			return withVersion(piece(c.cmd, field, items, byShard[s], ids), cm, s)
		})
		pending = nil
		for _, sr := range replies {
			idx := byShard[sr.shard]
			if stale := r.staleAt(sr); stale >= 0 {
				res.absorb(sr.reply, idx[:stale])
				pending = append(pending, idx[stale:]...)
				continue
			}
			if sr.err != nil {
				for _, i := range idx {
					res.addError(i, sr.err)
				}
				continue
			}
			res.absorb(sr.reply, idx)
		}
		if len(pending) > 0 {
			var err error
			if cm, err = r.refreshAfterStale(c.ctx, ns, cm, attempt); err != nil {
				for _, i := range pending {
					res.addError(i, err)
				}
				break
			}
			slices.Sort(pending)
		}
	}
	return cm, rest
}

func (r *Router) staleAt(sr shardReply) int {
	if mongoerr.Is(sr.err, mongoerr.StaleConfig) {
		return 0
	}
	if sr.err != nil {
		return -1
	}
	return staleWriteIndex(sr.reply)
}

// shardedUpdate and shardedDelete send the statements whose filter pins
// the whole shard key in pieces per owning shard (ordered: runs of
// consecutive statements for one shard, stopping at the first error;
// unordered: one piece per shard in parallel); every other statement is
// run on its own (writeOne), in order.
func (r *Router) shardedUpdate(c *call, ns string, cm *routing.ChunkManager) (bson.D, error) {
	return r.shardedWriteOps(c, ns, cm, "updates", true)
}

func (r *Router) shardedDelete(c *call, ns string, cm *routing.ChunkManager) (bson.D, error) {
	return r.shardedWriteOps(c, ns, cm, "deletes", false)
}

// keyedShard returns the shard of statement i when its filter pins the
// whole shard key (and, for an update, it keeps the key).
func keyedShard(cm *routing.ChunkManager, stmts bson.A, i int, isUpdate bool) (string, bool) {
	stmt, _ := stmts[i].(bson.D)
	qv, _ := bsonx.Get(stmt, "q")
	q, _ := qv.(bson.D)
	exact, hasKey := routing.ShardKeyFromFilter(cm.Pattern(), q)
	if !hasKey {
		return "", false
	}
	ch, err := cm.FindChunk(exact)
	if err != nil {
		return "", false
	}
	if isUpdate && checkKeyUnchanged(cm.Pattern(), stmt, exact, true) != nil {
		return "", false
	}
	return ch.Shard, true
}

func (r *Router) shardedWriteOps(c *call, ns string, cm *routing.ChunkManager, field string, isUpdate bool) (bson.D, error) {
	v, _ := bsonx.Get(c.cmd, field)
	stmts, _ := v.(bson.A)
	ids := stmtIDs(c.cmd, len(stmts))
	var res writeResult
	if !ordered(c.cmd) {
		return r.unorderedWriteOps(c, ns, cm, field, stmts, ids, isUpdate)
	}
	for i, attempt := 0, 0; i < len(stmts); {
		shard, keyed := keyedShard(cm, stmts, i, isUpdate)
		if !keyed {
			var err error
			cm, err = r.writeOne(c, ns, cm, field, stmts, i, ids, isUpdate, &res)
			if err != nil {
				res.addError(i, err)
			}
			if err != nil || len(res.errs) > 0 {
				break
			}
			i++
			continue
		}
		run := []int{i}
		for j := i + 1; j < len(stmts); j++ {
			if s, ok := keyedShard(cm, stmts, j, isUpdate); !ok || s != shard {
				break
			}
			run = append(run, j)
		}
		sr := r.send(c, shard, withVersion(piece(c.cmd, field, stmts, run, ids), cm, shard), false)
		if stale := r.staleAt(sr); stale >= 0 {
			res.absorb(sr.reply, run[:stale])
			var err error
			if cm, err = r.refreshAfterStale(c.ctx, ns, cm, attempt); err != nil {
				res.addError(run[stale], err)
				break
			}
			attempt++
			i = run[stale]
			continue
		}
		if sr.err != nil {
			res.addError(run[0], sr.err)
			break
		}
		res.absorb(sr.reply, run)
		if len(writeErrors(sr.reply)) > 0 {
			break
		}
		i = run[len(run)-1] + 1
	}
	return res.reply(isUpdate), nil
}

// unorderedWriteOps sends the keyed statements per shard in parallel,
// then runs the others one by one; every error is reported.
func (r *Router) unorderedWriteOps(c *call, ns string, cm *routing.ChunkManager, field string, stmts bson.A, ids []int32, isUpdate bool) (bson.D, error) {
	var res writeResult
	var pending, others []int
	for i := range stmts {
		if _, ok := keyedShard(cm, stmts, i, isUpdate); ok {
			pending = append(pending, i)
		} else {
			others = append(others, i)
		}
	}
	var rest []int
	cm, rest = r.sendUnordered(c, ns, cm, field, stmts, ids, pending, &res, func(cm *routing.ChunkManager, i int) (string, bool, error) {
		s, ok := keyedShard(cm, stmts, i, isUpdate)
		return s, ok, nil
	})
	others = append(others, rest...)
	slices.Sort(others)
	for _, i := range others {
		var err error
		if cm, err = r.writeOne(c, ns, cm, field, stmts, i, ids, isUpdate, &res); err != nil {
			res.addError(i, err)
		}
	}
	return res.reply(isUpdate), nil
}

// writeOne runs statement i. A statement whose filter pins the whole
// shard key, or targets one shard, goes there. A multi statement goes to
// every targeted shard. A single-document statement targeting several
// shards is sent to them one by one until one reports a match (MongoDB
// 7.0 instead runs a two-phase write: it first finds one matching
// document's shard key with a read on every shard, then writes it by
// key; both change at most one document, but here a document matching
// on a shard tried later is not considered once an earlier shard matched,
// and no sort is honoured).
func (r *Router) writeOne(c *call, ns string, cm *routing.ChunkManager, field string, stmts bson.A, i int, ids []int32, isUpdate bool, res *writeResult) (*routing.ChunkManager, error) {
	stmt, _ := stmts[i].(bson.D)
	qv, _ := bsonx.Get(stmt, "q")
	q, _ := qv.(bson.D)
	var multi bool
	if isUpdate {
		multi = truthy(stmt, "multi")
	} else {
		multi = int64Field(stmt, "limit") == 0
	}
	upsert := isUpdate && truthy(stmt, "upsert")
	done := map[string]bool{}
	for attempt := 0; ; attempt++ {
		exact, hasKey := routing.ShardKeyFromFilter(cm.Pattern(), q)
		var shards []string
		if hasKey {
			ch, err := cm.FindChunk(exact)
			if err != nil {
				return cm, err
			}
			shards = []string{ch.Shard}
		} else {
			shards, _ = cm.Target(q)
		}
		if upsert && !hasKey {
			return cm, mongoerr.New(mongoerr.ShardKeyNotFound,
				"Failed to target upsert by query :: could not extract exact shard key")
		}
		if isUpdate {
			if err := checkKeyUnchanged(cm.Pattern(), stmt, exact, hasKey); err != nil {
				return cm, err
			}
		}
		one := []int{i}
		build := func(s string) bson.D { return withVersion(piece(c.cmd, field, stmts, one, ids), cm, s) }
		var stale bool
		if multi || len(shards) == 1 {
			todo := slices.DeleteFunc(slices.Clone(shards), func(s string) bool { return done[s] })
			for _, sr := range r.sendAll(c, todo, false, build) {
				switch {
				case r.staleAt(sr) >= 0:
					stale = true
				case sr.err != nil:
					return cm, sr.err
				default:
					done[sr.shard] = true
					res.absorb(sr.reply, one)
				}
			}
		} else {
			for _, s := range shards {
				sr := r.send(c, s, build(s), false)
				if r.staleAt(sr) >= 0 {
					stale = true
					break
				}
				if sr.err != nil {
					return cm, sr.err
				}
				res.absorb(sr.reply, one)
				if int64Field(sr.reply, "n") > 0 || len(writeErrors(sr.reply)) > 0 {
					break
				}
			}
		}
		if !stale {
			return cm, nil
		}
		var err error
		if cm, err = r.refreshAfterStale(c.ctx, ns, cm, attempt); err != nil {
			return cm, err
		}
	}
}

// checkKeyUnchanged refuses an update that may change a document's shard
// key: MongoDB moves such a document to its new shard (in a transaction
// or a retryable write), which needs the migration machinery of part 2.
// An operator update touching a key field is accepted only when it sets
// the value the filter pins; a replacement only when its key is the
// filter's.
func checkKeyUnchanged(p key.Pattern, stmt bson.D, exact bson.D, hasKey bool) error {
	uv, _ := bsonx.Get(stmt, "u")
	u, isDoc := uv.(bson.D)
	if !isDoc { // a pipeline: not checked
		return nil
	}
	refuse := func() error {
		return mongoerr.New(mongoerr.IllegalOperation,
			"an update that changes a document's shard key value (%s) is not supported by the router yet", p)
	}
	if len(u) == 0 || !strings.HasPrefix(u[0].Key, "$") {
		if !hasKey {
			return nil // a single-document replacement without the key: not checked
		}
		k, err := p.Extract(withID(u, exact))
		if err != nil {
			return err
		}
		if key.Compare(k, exact) != 0 {
			return refuse()
		}
		return nil
	}
	for _, op := range u {
		fields, _ := op.Value.(bson.D)
		for _, f := range fields {
			paths := []string{f.Key}
			if op.Key == "$rename" {
				to, _ := f.Value.(string)
				paths = append(paths, to)
			}
			for _, path := range paths {
				for _, kf := range p.Fields() {
					if !isPrefixPath(path, kf.Path) && !isPrefixPath(kf.Path, path) {
						continue
					}
					if (op.Key == "$set" || op.Key == "$setOnInsert") && hasKey && path == kf.Path && sameKeyValue(kf, f.Value, exact) {
						continue
					}
					if op.Key == "$setOnInsert" {
						continue // applies only to the inserted document, whose key is checked by the shard's owner
					}
					return refuse()
				}
			}
		}
	}
	return nil
}

func isPrefixPath(p, q string) bool { return p == q || strings.HasPrefix(q, p+".") }

// sameKeyValue reports whether setting field f to v leaves the key exact.
func sameKeyValue(f key.Field, v any, exact bson.D) bool {
	for _, e := range exact {
		if e.Key != f.Path {
			continue
		}
		if f.Hashed {
			h, err := key.Hash(v)
			return err == nil && bsonx.Compare(h, e.Value) == 0
		}
		return bsonx.Compare(v, e.Value) == 0
	}
	return false
}

// withID adds the filter's _id to a replacement without one (the
// document keeps its _id).
func withID(u bson.D, exact bson.D) bson.D {
	if _, ok := bsonx.Get(u, "_id"); ok {
		return u
	}
	if id, ok := bsonx.Get(exact, "_id"); ok {
		return append(bson.D{{Key: "_id", Value: id}}, u...)
	}
	return u
}

// shardedFindAndModify targets the shard owning the filter's key (or the
// only shard the filter targets); otherwise it tries the targeted shards
// one by one until one returns a document (without a sort, as a
// single-document update does; with a sort it is refused).
func (r *Router) shardedFindAndModify(c *call, ns string, cm *routing.ChunkManager) (bson.D, error) {
	qv, _ := bsonx.Get(c.cmd, "query")
	q, _ := qv.(bson.D)
	upsert := truthy(c.cmd, "upsert")
	for attempt := 0; ; attempt++ {
		exact, hasKey := routing.ShardKeyFromFilter(cm.Pattern(), q)
		var shards []string
		if hasKey {
			ch, err := cm.FindChunk(exact)
			if err != nil {
				return nil, err
			}
			shards = []string{ch.Shard}
		} else {
			shards, _ = cm.Target(q)
		}
		if upsert && !hasKey {
			return nil, mongoerr.New(mongoerr.ShardKeyNotFound, "Query for sharded findAndModify must contain the shard key")
		}
		if uv, ok := bsonx.Get(c.cmd, "update"); ok {
			if err := checkKeyUnchanged(cm.Pattern(), bson.D{{Key: "u", Value: uv}}, exact, hasKey); err != nil {
				return nil, err
			}
		}
		if _, sorted := bsonx.Get(c.cmd, "sort"); sorted && len(shards) > 1 {
			return nil, mongoerr.New(mongoerr.ShardKeyNotFound, "Query for sharded findAndModify with a sort must contain the shard key")
		}
		var last shardReply
		stale := false
		for _, s := range shards {
			last = r.send(c, s, withVersion(c.cmd, cm, s), retryableWrite(c.cmd))
			if r.staleAt(last) >= 0 {
				stale = true
				break
			}
			if last.reply == nil {
				return nil, last.err
			}
			if last.err != nil {
				return last.reply, nil
			}
			if v, _ := bsonx.Get(last.reply, "value"); v != nil {
				break
			}
		}
		if !stale {
			return last.reply, nil
		}
		var err error
		if cm, err = r.refreshAfterStale(c.ctx, ns, cm, attempt); err != nil {
			return nil, err
		}
	}
}
