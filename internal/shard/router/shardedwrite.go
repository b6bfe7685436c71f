package router

import (
	"slices"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
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
		var arr bson.A
		for i := 0; i < len(w.errs); {
			j := i + 1
			for j < len(w.errs) && int64Field(w.errs[j], "index") == int64Field(w.errs[i], "index") {
				j++
			}
			arr = append(arr, combineErrors(w.errs[i:j]))
			i = j
		}
		out = append(out, bson.E{Key: "writeErrors", Value: arr})
	}
	if w.wce != nil {
		out = append(out, bson.E{Key: "writeConcernError", Value: w.wce})
	}
	return append(out, bson.E{Key: "ok", Value: 1.0})
}

// combineErrors is one statement's write error from the errors several
// shards gave for it (MongoDB's combineOpErrors): the first when they
// share a code, else MultipleErrorsOccurred (65) with every error in
// errInfo.causedBy.
func combineErrors(errs []bson.D) bson.D {
	same := true
	for _, e := range errs[1:] {
		same = same && errCode(e) == errCode(errs[0])
	}
	if same {
		return errs[0]
	}
	msgs := make([]string, len(errs))
	causes := make(bson.A, len(errs))
	for i, e := range errs {
		m, _ := bsonx.Get(e, "errmsg")
		msgs[i], _ = m.(string)
		causes[i] = e
	}
	idx, _ := bsonx.Get(errs[0], "index")
	return bson.D{{Key: "index", Value: idx}, {Key: "code", Value: int32(mongoerr.MultipleErrorsOccurred)},
		{Key: "codeName", Value: mongoerr.MultipleErrorsOccurred.Name()},
		{Key: "errmsg", Value: "multiple errors for op : " + strings.Join(msgs, " :: and :: ")},
		{Key: "errInfo", Value: bson.D{{Key: "causedBy", Value: causes}}}}
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
	if err := parseWrite(c); err != nil {
		return nil, err
	}
	v, _ := bsonx.Get(c.cmd, "documents")
	docs, _ := v.(bson.A)
	b := batch{field: "documents", items: docs, ids: stmtIDs(c.cmd, len(docs))}
	owner := func(cm *routing.ChunkManager, i int) (string, bool, error) {
		d, _ := docs[i].(bson.D)
		s, err := cm.ShardFor(d)
		return s, true, err
	}
	var res writeResult
	if ordered(c.cmd) {
		r.sendOrdered(c, ns, cm, b, &res, owner, nil)
		return res.reply(false), nil
	}
	r.sendUnordered(c, ns, cm, b, allIndexes(len(docs)), &res, owner)
	return res.reply(false), nil
}

// batch is a write command's statements: its array field, the items and
// the client's statement ids (nil unless a retryable write).
type batch struct {
	field string
	items bson.A
	ids   []int32
}

func allIndexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// sendOrdered sends the statements in order, stopping at the first error:
// runs of consecutive statements that owner places on one shard go as one
// piece; a statement owner hands back (ok false) runs alone through
// single. After a StaleConfig the routing table is refreshed and the
// piece resent from the stale statement on. It returns the routing table
// it ended with.
func (r *Router) sendOrdered(c *call, ns string, cm *routing.ChunkManager, b batch, res *writeResult,
	owner func(*routing.ChunkManager, int) (string, bool, error),
	single func(*routing.ChunkManager, int) (*routing.ChunkManager, error)) *routing.ChunkManager {
	for i, attempt := 0, 0; i < len(b.items); {
		shard, keyed, err := owner(cm, i)
		if err != nil {
			res.addError(i, err)
			return cm
		}
		if !keyed {
			if cm, err = single(cm, i); err != nil {
				res.addError(i, err)
			}
			if err != nil || len(res.errs) > 0 {
				return cm
			}
			i++
			continue
		}
		run := []int{i}
		for j := i + 1; j < len(b.items); j++ {
			if s, ok, err := owner(cm, j); err != nil || !ok || s != shard {
				break
			}
			run = append(run, j)
		}
		sr := r.send(c, shard, withVersion(piece(c.cmd, b.field, b.items, run, b.ids), cm, shard), false)
		if stale := r.staleAt(sr); stale >= 0 {
			res.absorb(sr.reply, run[:stale])
			if cm, err = r.refreshAfterStale(c.ctx, ns, cm, attempt); err != nil {
				res.addError(run[stale], err)
				return cm
			}
			attempt++
			i = run[stale]
			continue
		}
		if sr.err != nil {
			res.addError(run[0], sr.err)
			return cm
		}
		res.absorb(sr.reply, run)
		if len(writeErrors(sr.reply)) > 0 {
			return cm
		}
		i = run[len(run)-1] + 1
	}
	return cm
}

// sendUnordered sends the pending statements (indexes into items, the
// command's field) to their shards in parallel, round after round until
// none came back stale, refreshing the routing table in between. owner
// names a statement's shard; ok false hands the statement back in rest
// (it is no longer targeted by its key), an error is its write error.
// It returns the routing table it ended with.
func (r *Router) sendUnordered(c *call, ns string, cm *routing.ChunkManager, b batch,
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
			return withVersion(piece(c.cmd, b.field, b.items, byShard[s], b.ids), cm, s)
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

// staleAt returns the index of the first statement of a piece a shard
// refused with StaleConfig (0 for a command error), -1 when it did not.
func (r *Router) staleAt(sr shardReply) int {
	if mongoerr.Is(sr.err, mongoerr.StaleConfig) || mongoerr.Is(sr.err, mongoerr.ShardNotFound) { // a removed shard (removeShard)
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
// run on its own (writeOne), in order. An update a shard answers with
// WouldChangeOwningShard moves the document (resolveKeyChanges).
func (r *Router) shardedUpdate(c *call, ns string, cm *routing.ChunkManager) (bson.D, error) {
	if err := parseWrite(c); err != nil {
		return nil, err
	}
	res, cm, stmts := r.shardedWriteOps(c, ns, cm, "updates", true)
	r.resolveKeyChanges(c, ns, cm, stmts, &res)
	return res.reply(true), nil
}

func (r *Router) shardedDelete(c *call, ns string, cm *routing.ChunkManager) (bson.D, error) {
	if err := parseWrite(c); err != nil {
		return nil, err
	}
	res, _, _ := r.shardedWriteOps(c, ns, cm, "deletes", false)
	return res.reply(false), nil
}

// keyedShard returns the shard of statement i when its filter pins the
// whole shard key (the shard itself refuses or reports a change of the
// key: see package shardsvr).
func keyedShard(cm *routing.ChunkManager, stmts bson.A, i int) (string, bool) {
	stmt, _ := stmts[i].(bson.D)
	exact, hasKey := routing.ShardKeyFromFilter(cm.Pattern(), stmtTargetable(stmt, "q"))
	if !hasKey {
		return "", false
	}
	ch, err := cm.FindChunk(exact)
	if err != nil {
		return "", false
	}
	return ch.Shard, true
}

func (r *Router) shardedWriteOps(c *call, ns string, cm *routing.ChunkManager, field string, isUpdate bool) (writeResult, *routing.ChunkManager, bson.A) {
	v, _ := bsonx.Get(c.cmd, field)
	stmts, _ := v.(bson.A)
	b := batch{field: field, items: stmts, ids: stmtIDs(c.cmd, len(stmts))}
	var res writeResult
	owner := func(cm *routing.ChunkManager, i int) (string, bool, error) {
		s, ok := keyedShard(cm, stmts, i)
		return s, ok, nil
	}
	single := func(cm *routing.ChunkManager, i int) (*routing.ChunkManager, error) {
		return r.writeOne(c, ns, cm, b, i, isUpdate, &res)
	}
	if ordered(c.cmd) {
		cm = r.sendOrdered(c, ns, cm, b, &res, owner, single)
		return res, cm, stmts
	}
	var pending, others []int
	for i := range stmts {
		if _, ok := keyedShard(cm, stmts, i); ok {
			pending = append(pending, i)
		} else {
			others = append(others, i)
		}
	}
	var rest []int
	cm, rest = r.sendUnordered(c, ns, cm, b, pending, &res, owner)
	others = append(others, rest...)
	slices.Sort(others)
	for _, i := range others {
		var err error
		if cm, err = single(cm, i); err != nil {
			res.addError(i, err)
		}
	}
	return res, cm, stmts
}

// writeOne runs statement i whose filter does not pin the shard key to
// one chunk: a multi statement, or one targeting a single shard, goes to
// every targeted shard; a single-document statement targeting several
// shards is a two-phase write without shard key (writeWithoutShardKey).
// An upsert goes to the shard owning the key its filter pins (a null
// equality counting: upsertShardKey); without one, a single-document
// upsert is a write without shard key and a multi upsert is refused
// (ShardKeyNotFound), as in MongoDB 7.0 (useTwoPhaseProtocol).
func (r *Router) writeOne(c *call, ns string, cm *routing.ChunkManager, b batch, i int, isUpdate bool, res *writeResult) (*routing.ChunkManager, error) {
	stmt, _ := b.items[i].(bson.D)
	q := stmtTargetable(stmt, "q")
	multi := int64Field(stmt, "limit") == 0
	upsert := isUpdate && truthy(stmt, "upsert")
	if isUpdate {
		multi = truthy(stmt, "multi")
	}
	done := map[string]bool{}
	one := []int{i}
	for attempt := 0; ; attempt++ {
		shards, hasKey, err := targetUpsert(cm, q, upsert)
		if err != nil {
			return cm, err
		}
		if upsert && !hasKey && multi {
			return cm, mongoerr.New(mongoerr.ShardKeyNotFound,
				"Failed to target upsert by query :: could not extract exact shard key")
		}
		if !multi && len(shards) > 1 {
			return r.writeWithoutShardKey(c, ns, cm, b, i, res)
		}
		todo := slices.DeleteFunc(slices.Clone(shards), func(s string) bool { return done[s] })
		stale := false
		for _, sr := range r.sendAll(c, todo, false, func(s string) bson.D {
			return withVersion(piece(c.cmd, b.field, b.items, one, b.ids), cm, s)
		}) {
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
		if !stale {
			return cm, nil
		}
		if cm, err = r.refreshAfterStale(c.ctx, ns, cm, attempt); err != nil {
			return cm, err
		}
	}
}

// targetUpsert is targetFilter, except that an upsert whose filter pins
// the shard key with null equalities (upsertShardKey) goes to that key's
// shard.
func targetUpsert(cm *routing.ChunkManager, q bson.D, upsert bool) (shards []string, hasKey bool, err error) {
	shards, hasKey, err = targetFilter(cm, q)
	if err != nil || hasKey || !upsert {
		return shards, hasKey, err
	}
	shard, ok, err := upsertTarget(cm, q)
	if err != nil || !ok {
		return shards, false, err
	}
	return []string{shard}, true, nil
}

// targetFilter returns the shards a filter targets: the owner of its
// shard key when it pins the whole key (hasKey), else every shard whose
// chunks it may reach.
func targetFilter(cm *routing.ChunkManager, q bson.D) (shards []string, hasKey bool, err error) {
	exact, hasKey := routing.ShardKeyFromFilter(cm.Pattern(), q)
	if !hasKey {
		shards, _ = cm.Target(q)
		return shards, false, nil
	}
	ch, err := cm.FindChunk(exact)
	if err != nil {
		return nil, true, err
	}
	return []string{ch.Shard}, true, nil
}

// shardedFindAndModify targets the shard owning the filter's key (or the
// only shard the filter targets); otherwise it runs a two-phase write
// without shard key (with the command's sort). A shard's
// WouldChangeOwningShard moves the document (findAndModifyKeyChange).
func (r *Router) shardedFindAndModify(c *call, ns string, cm *routing.ChunkManager) (bson.D, error) {
	if err := parseWrite(c); err != nil {
		return nil, err
	}
	q := stmtTargetable(c.cmd, "query")
	for attempt := 0; ; attempt++ {
		shards, _, err := targetUpsert(cm, q, truthy(c.cmd, "upsert"))
		if err != nil {
			return nil, err
		}
		if len(shards) > 1 {
			return r.findAndModifyWithoutShardKey(c, ns, cm)
		}
		sr := r.send(c, shards[0], withVersion(c.cmd, cm, shards[0]), retryableWrite(c.cmd))
		if r.staleAt(sr) < 0 {
			return r.findAndModifyReply(c, ns, cm, sr)
		}
		if cm, err = r.refreshAfterStale(c.ctx, ns, cm, attempt); err != nil {
			return nil, err
		}
	}
}

// findAndModifyReply is a shard's findAndModify answer as the client's:
// an ok:0 reply passes through, except WouldChangeOwningShard, which moves
// the document.
func (r *Router) findAndModifyReply(c *call, ns string, cm *routing.ChunkManager, sr shardReply) (bson.D, error) {
	if sr.reply == nil {
		return nil, sr.err
	}
	if mongoerr.Is(sr.err, mongoerr.WouldChangeOwningShard) {
		return r.findAndModifyKeyChange(c, ns, cm, sr.reply)
	}
	return sr.reply, nil
}

// isPrefixPath reports whether dotted path p is q or a parent of q.
func isPrefixPath(p, q string) bool { return p == q || strings.HasPrefix(q, p+".") }
