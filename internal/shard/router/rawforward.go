package router

import (
	"errors"
	"net"
	"runtime/debug"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// The fast path (forwarding without decoding): a CRUD command on an
// unsharded collection, or on a sharded collection a find its routing
// table sends to one shard or a write of one statement whose document or
// filter pins the shard key, is forwarded as the client's bytes with the
// version fields appended (shardVersion UNSHARDED and databaseVersion, or
// the shard's shardVersion), its document sequences passed on as
// sequences, and the shard's reply bytes go back to the client as they
// are. Only a few fields are read from the raw documents.
//
// Invariants:
//   - The fast path sends a request at most once. Whenever it would have
//     to resend (StaleConfig, StaleDbVersion, NotWritablePrimary,
//     WouldChangeOwningShard: the shard did nothing; a failed connect; a
//     network failure of a read or retryable write), it stops and the
//     decoded path (forward) serves the request from scratch, retrying as
//     it always did. A network failure after a non-idempotent write may
//     have been sent is HostUnreachable, as in replSet.Run.
//   - A request the fast path does not fully understand (transactions,
//     an invalid $readPreference, client-sent versions, other commands, a
//     triggered failCommand) goes the decoded way before anything is sent.
//   - A read whose $readPreference mode is not primary goes only to the
//     member server selection picks (readpref.go), never to the primary
//     first; its cursor stays on that member.
//   - A reply passes through unchanged, apart from the router's
//     $clusterTime appended to a sharded collection's reply that has none
//     (as routeSharded does); its cursor id is recorded (cursors.go) and
//     its $clusterTime observed, exactly as on the decoded path.
//
// rawrequest.go reads the request, rawbytes.go the replies and the
// encoded version fields.
//
// TODO(#15): still decoded: getMore and killCursors (the cursor table
// needs only the id), aggregate, statements of
// transactions, and on sharded collections count/distinct/findAndModify
// and writes of several statements for one shard. The router's CPU per
// forwarded read is now mostly its two socket writes, reads and goroutine
// wake-ups (bench/results/router-overhead.md).
//
// TODO(#15): two ways to cut the shard side's syscalls were measured
// against this path and did not lower the router's CPU per read by 10 %
// (local branches): shared shard connections with coalesced writes and a
// reply-dispatching reader (exp/router-mux: the router, not the shard, is
// the bottleneck, so requests rarely queue: 1.25 requests per shard
// write on average, while the reader's hand-off adds a wake-up: +12 %),
// and a Unix domain socket per server as mongod has (exp/router-unix:
// about -5 %). Left: the client-side write and the wake-ups.

// serveRaw serves req on the fast path. done is false when nothing was
// sent and the decoded path must serve it; fp is the failCommand
// activation already consumed for it (checked is true once looked up).
func (r *Router) serveRaw(conn *command.Conn, req *command.Request) (reply []byte, done bool, fp *activation, checked bool) {
	q, ok := scanRequest(req)
	if !ok {
		return nil, false, nil, false
	}
	if _, local := localCommands[q.name]; local {
		return nil, false, nil, false
	}
	if !r.rawAuthorized(conn, &q) { // the decoded path answers Unauthorized
		return nil, false, nil, false
	}
	if fp = r.failCommand.check(q.name, r.appName(conn)); fp != nil {
		return nil, false, fp, true
	}
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("command panicked", "command", q.name, "panic", p, "stack", string(debug.Stack()))
			reply, done = r.ErrorReply(mongoerr.New(mongoerr.InternalError, "internal error in %s: %v", q.name, p)), true
		}
	}()
	reply, done = r.forwardRaw(&q)
	if done && r.auth.on {
		if id, ok := bson.Raw(reply).Lookup("cursor", "id").AsInt64OK(); ok {
			r.ownCursor(conn, id) // cursor_owner.go
		}
	}
	return reply, done, nil, true
}

// forwardRaw targets q and sends it; done is false to fall back.
func (r *Router) forwardRaw(q *rawReq) ([]byte, bool) {
	ns := q.db + "." + q.coll
	cm, err := r.catalog.get(r.ctx, ns)
	if err != nil {
		return nil, false
	}
	if cm != nil {
		return r.forwardRawSharded(q, ns, cm)
	}
	d, found, err := r.database(r.ctx, q.db, !q.readOnly())
	if err != nil || !found {
		return nil, false
	}
	var elems []byte
	if !q.selects() { // a read for a selected member goes unversioned (versionedUnsharded)
		if elems, err = r.unshardedVersionElems(q.db, d.Version); err != nil {
			return nil, false
		}
	}
	out := r.sendRaw(q, d.Primary, elems)
	if out.reply == nil {
		return out.failed, out.failed != nil
	}
	if err := r.unshardedStale(q, ns, out.reply); err != nil {
		if mongoerr.Is(err, mongoerr.NotWritablePrimary) {
			out.t.set.forget(out.host)
		}
		return nil, false
	}
	return r.finishRaw(out, false), true
}

// sent is the outcome of sendRaw.
type sent struct {
	reply  bson.Raw // the shard's reply; nil when not sent or failed
	host   string
	t      target
	failed []byte // an error reply for the client: not resendable
}

// sendRaw sends q's body with elems appended once to shard's primary,
// or for a read whose mode is not primary to the member server selection
// picks (readpref.go; none suits it: the client gets
// FailedToSatisfyReadPreference at once, not after a second wait). With
// neither reply nor failed set nothing was executed, or resending is
// safe: the decoded path takes over.
func (r *Router) sendRaw(q *rawReq, shard string, elems []byte) (out sent) {
	s, err := r.shard(r.ctx, shard)
	if err != nil {
		return out
	}
	out.t = target{id: shard, set: s}
	if out.host, err = s.selectHost(r.ctx, q.readPref()); err != nil {
		if q.selects() && mongoerr.Is(err, mongoerr.FailedToSatisfyReadPreference) {
			r.stats.commands.Add(1)
			r.stats.failed.Add(1)
			out.failed = r.ErrorReply(err)
		}
		return out
	}
	buf := bodyBufs.Get().(*[]byte)
	body := appendElems((*buf)[:0], q.body, elems)
	out.reply, err = r.pool.RunMsg(r.ctx, out.host, body, q.seqs)
	if cap(body) <= maxPooledBody {
		*buf = body
		bodyBufs.Put(buf)
	}
	if err == nil {
		return out
	}
	s.forget(out.host)
	if dialFailed(err) || q.idempotent() || r.ctx.Err() != nil {
		return out
	}
	me := mongoerr.New(mongoerr.HostUnreachable, "network error while sending %s to %s (set %s): %v", q.name, out.host, s.name, err)
	if q.retryable {
		me = me.WithLabels(mongoerr.LabelRetryableWrite)
	}
	r.stats.commands.Add(1)
	r.stats.failed.Add(1)
	out.failed = r.ErrorReply(me)
	return out
}

// finishRaw records what the decoded path records from a forwarded reply.
func (r *Router) finishRaw(out sent, gossip bool) []byte {
	reply := out.reply
	r.stats.commands.Add(1)
	r.stats.forwarded.Add(1)
	r.observeClusterTimeRaw(reply)
	if id, ok := reply.Lookup("cursor", "id").AsInt64OK(); ok && id != 0 {
		r.cursors.add(id, out.t, out.host)
	}
	if gossip {
		if _, err := reply.LookupErr("$clusterTime"); err != nil {
			return r.gossipRaw(reply)
		}
	}
	return reply
}

// unshardedStale reports a reply the decoded path must redo: a
// NotWritablePrimary-class error (nothing was done), StaleDbVersion (the
// database entry is dropped from the cache) or StaleConfig, each as an
// error or a write error (the routing table is reloaded).
func (r *Router) unshardedStale(q *rawReq, ns string, reply bson.Raw) error {
	code := rawErrCode(reply)
	if code == mongoerr.OK && rawWriteError(reply, mongoerr.StaleDbVersion) { // a write's answer (movePrimary)
		code = mongoerr.StaleDbVersion
	}
	switch code {
	case mongoerr.NotWritablePrimary, mongoerr.NotPrimaryNoSecondaryOk, mongoerr.NotPrimaryOrSecondary:
		return mongoerr.New(mongoerr.NotWritablePrimary, "not primary")
	case mongoerr.CommandOnShardedViewNotSupportedOnMongod: // views.go re-runs it
		return mongoerr.New(code, "a view over a sharded collection")
	case mongoerr.StaleDbVersion:
		r.observeClusterTimeRaw(reply)
		r.mu.Lock()
		delete(r.mu.dbs, q.db)
		r.mu.Unlock()
		return mongoerr.New(code, "stale database version")
	}
	if code == mongoerr.StaleConfig || (code == mongoerr.OK && rawWriteError(reply, mongoerr.StaleConfig)) {
		r.observeClusterTimeRaw(reply)
		_, _ = r.catalog.refresh(r.ctx, ns, nil)
		return mongoerr.New(mongoerr.StaleConfig, "stale collection version")
	}
	return nil
}

// forwardRawSharded sends a find the routing table targets to one shard
// (singleShardRead's work), or a write of one statement whose document or
// filter pins the shard key (sendOrdered's work for it), with that
// shard's version; anything else on a sharded collection takes the
// decoded path.
func (r *Router) forwardRawSharded(q *rawReq, ns string, cm *routing.ChunkManager) ([]byte, bool) {
	shard, ok := rawTarget(q, cm)
	if !ok {
		return nil, false
	}
	elems, err := r.shardVersionElems(ns, cm, shard)
	if err != nil {
		return nil, false
	}
	out := r.sendRaw(q, shard, elems)
	if out.reply == nil {
		return out.failed, out.failed != nil
	}
	switch code := rawErrCode(out.reply); {
	case code == mongoerr.NotWritablePrimary || code == mongoerr.NotPrimaryNoSecondaryOk || code == mongoerr.NotPrimaryOrSecondary:
		out.t.set.forget(out.host)
		return nil, false
	case code == mongoerr.StaleConfig || (code == mongoerr.OK && rawWriteError(out.reply, mongoerr.StaleConfig)):
		r.observeClusterTimeRaw(out.reply)
		_, _ = r.catalog.refresh(r.ctx, ns, cm)
		return nil, false
	case code == mongoerr.WouldChangeOwningShard || (code == mongoerr.OK && rawWriteError(out.reply, mongoerr.WouldChangeOwningShard)):
		// The shard changed nothing; the decoded path moves the document.
		r.observeClusterTimeRaw(out.reply)
		return nil, false
	}
	return r.finishRaw(out, true), true
}

// rawTarget is the one shard q goes to on a sharded collection: a find
// whose filter targets one shard, an insert of one document, an update or
// delete of one statement whose filter pins the whole shard key.
func rawTarget(q *rawReq, cm *routing.ChunkManager) (string, bool) {
	if q.name == "find" {
		var filter bson.D
		if q.filter != nil {
			var err error
			if filter, err = bsonx.Decode(q.filter); err != nil {
				return "", false
			}
		}
		shards, _ := cm.Target(filter)
		return firstOf(shards)
	}
	if q.stmtIDs || statementsField(q.name) == "" {
		return "", false
	}
	raw, ok := q.single()
	if !ok {
		return "", false
	}
	stmt, err := bsonx.Decode(raw)
	if err != nil {
		return "", false
	}
	if q.name == "insert" {
		s, err := cm.ShardFor(stmt)
		return s, err == nil
	}
	exact, hasKey := routing.ShardKeyFromFilter(cm.Pattern(), stmtTargetable(stmt, "q"))
	if !hasKey {
		return "", false
	}
	ch, err := cm.FindChunk(exact)
	return ch.Shard, err == nil
}

func firstOf(shards []string) (string, bool) {
	if len(shards) != 1 {
		return "", false
	}
	return shards[0], true
}

// dialFailed reports a failure to connect: nothing was sent.
func dialFailed(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}
