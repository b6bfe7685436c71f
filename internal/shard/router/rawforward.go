package router

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"runtime/debug"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
	"github.com/relaydb/relaydb/internal/shard/routing"
	"github.com/relaydb/relaydb/internal/shard/shardsvr"
	"github.com/relaydb/relaydb/internal/wire"
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
//     WouldChangeOwningShard, a failed connect, a network failure of a
//     read or retryable write), it stops
//     and the decoded path (forward) serves the request from scratch: it
//     retries as it always did. A network failure after a non-idempotent
//     write may have been sent is HostUnreachable, as in replSet.Run.
//   - A request the fast path does not fully understand (transactions,
//     reads for secondaries, client-sent versions, other commands, a
//     triggered failCommand) goes the decoded way before anything is sent.
//   - A reply passes through unchanged, apart from the router's
//     $clusterTime appended to a sharded read's reply that has none (as
//     routeSharded does); its cursor id is recorded (cursors.go) and its
//     $clusterTime observed, exactly as on the decoded path.

// rawReq is what the fast path reads from a request.
type rawReq struct {
	name, coll, db string
	body           bson.Raw
	seqs           []wire.Sequence
	filter         bson.Raw // find's filter, nil when absent
	stmts          bson.Raw // the body's documents/updates/deletes array
	retryable      bool     // txnNumber outside a transaction
	stmtIDs        bool     // the client sent stmtId or stmtIds
}

// rawCommands are the commands the fast path forwards (those
// versionedUnsharded sends with versions, without aggregate).
func rawCommand(name string) bool {
	switch name {
	case "find", "insert", "update", "delete", "count", "distinct", "findAndModify", "findandmodify":
		return true
	}
	return false
}

// scanRequest reads the fields the fast path needs in one pass over the
// body; ok is false when the request must take the decoded path.
func scanRequest(req *command.Request) (q rawReq, ok bool) {
	body := bsoncore.Document(req.Body)
	if len(body) < 5 {
		return q, false
	}
	rest := body[4 : len(body)-1]
	first := true
	for len(rest) > 0 {
		el, next, valid := bsoncore.ReadElement(rest)
		if !valid {
			return q, false
		}
		rest = next
		if first {
			first = false
			q.name = el.Key()
			coll, isStr := el.Value().StringValueOK()
			if !rawCommand(q.name) || !isStr || coll == "" {
				return q, false
			}
			q.coll = coll
			continue
		}
		if !q.scanField(el) {
			return q, false
		}
	}
	if q.db == "" || q.db == "admin" || q.db == "config" || q.db == "local" {
		return q, false
	}
	q.body = bson.Raw(body)
	for _, s := range req.Sequences {
		q.seqs = append(q.seqs, wire.Sequence{Identifier: s.Identifier, Docs: s.Docs})
	}
	return q, true
}

// scanField reads one body field; false sends the request the decoded way.
func (q *rawReq) scanField(el bsoncore.Element) bool {
	switch string(el.KeyBytes()) {
	case "$db":
		db, ok := el.Value().StringValueOK()
		q.db = db
		return ok
	case "autocommit", "startTransaction", "shardVersion", "databaseVersion":
		return false
	case "txnNumber":
		q.retryable = true
	case "$readPreference":
		rp, ok := el.Value().DocumentOK()
		if !ok {
			return false
		}
		mode, _ := rp.Lookup("mode").StringValueOK()
		return mode != "secondary" && mode != "secondaryPreferred"
	case "filter":
		if q.name == "find" {
			f, ok := el.Value().DocumentOK()
			q.filter = bson.Raw(f)
			return ok
		}
	case "documents", "updates", "deletes":
		if statementsField(q.name) == string(el.KeyBytes()) {
			arr, ok := el.Value().ArrayOK()
			q.stmts = bson.Raw(arr)
			return ok
		}
	case "stmtId", "stmtIds":
		q.stmtIDs = true
	}
	return true
}

// statementsField names the array of a write command's statements.
func statementsField(name string) string {
	switch name {
	case "insert":
		return "documents"
	case "update":
		return "updates"
	case "delete":
		return "deletes"
	}
	return ""
}

// single returns the only statement of a write command (from its document
// sequence or its body), false when there are several or none.
func (q *rawReq) single() (bson.Raw, bool) {
	field := statementsField(q.name)
	for _, s := range q.seqs {
		if s.Identifier == field {
			if len(s.Docs) != 1 || q.stmts != nil {
				return nil, false
			}
			return s.Docs[0], true
		}
	}
	if q.stmts == nil {
		return nil, false
	}
	vals, err := q.stmts.Values()
	if err != nil || len(vals) != 1 {
		return nil, false
	}
	d, ok := vals[0].DocumentOK()
	return d, ok
}

// idempotent mirrors idempotent(c) for the fast path's commands.
func (q *rawReq) idempotent() bool {
	switch q.name {
	case "find", "count", "distinct":
		return true
	}
	return q.retryable
}

// readOnly mirrors readOnly(c): reads never create their database.
func (q *rawReq) readOnly() bool {
	switch q.name {
	case "find", "count", "distinct":
		return true
	}
	return false
}

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
	elems, err := r.unshardedVersionElems(q.db, d.Version)
	if err != nil {
		return nil, false
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

// sendRaw sends q's body with elems appended to shard's primary once. With neither reply nor
// failed set nothing was executed, or resending is safe: the decoded
// path takes over.
func (r *Router) sendRaw(q *rawReq, shard string, elems []byte) (out sent) {
	s, err := r.shard(r.ctx, shard)
	if err != nil {
		return out
	}
	out.t = target{id: shard, set: s}
	if out.host, err = s.primary(r.ctx); err != nil {
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
// database entry is dropped from the cache) or StaleConfig, as an error or
// a write error (the routing table is reloaded).
func (r *Router) unshardedStale(q *rawReq, ns string, reply bson.Raw) error {
	code := rawErrCode(reply)
	switch code {
	case mongoerr.NotWritablePrimary, mongoerr.NotPrimaryNoSecondaryOk, mongoerr.NotPrimaryOrSecondary:
		return mongoerr.New(mongoerr.NotWritablePrimary, "not primary")
	case mongoerr.StaleDbVersion:
		r.observeClusterTimeRaw(reply)
		r.mu.Lock()
		delete(r.mu.dbs, q.db)
		r.mu.Unlock()
		return mongoerr.New(code, "stale database version")
	}
	if code == mongoerr.StaleConfig || (code == 0 && rawWriteError(reply, mongoerr.StaleConfig)) {
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
	case code == mongoerr.StaleConfig || (code == 0 && rawWriteError(out.reply, mongoerr.StaleConfig)):
		r.observeClusterTimeRaw(out.reply)
		_, _ = r.catalog.refresh(r.ctx, ns, cm)
		return nil, false
	case code == mongoerr.WouldChangeOwningShard || (code == 0 && rawWriteError(out.reply, mongoerr.WouldChangeOwningShard)):
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
	exact, hasKey := routing.ShardKeyFromFilter(cm.Pattern(), docField(stmt, "q"))
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

// rawErrCode is the code of an ok:0 reply, 0 for a successful one.
func rawErrCode(reply bson.Raw) mongoerr.Code {
	if rawOK(reply) {
		return 0
	}
	n, ok := reply.Lookup("code").AsInt64OK()
	if !ok {
		return mongoerr.UnknownError
	}
	return mongoerr.Code(n)
}

func rawOK(reply bson.Raw) bool {
	v := reply.Lookup("ok")
	if b, isBool := v.BooleanOK(); isBool {
		return b
	}
	n, _ := v.AsFloat64OK()
	return n == 1
}

// rawWriteError reports a write error with code among a write reply's
// writeErrors.
func rawWriteError(reply bson.Raw, code mongoerr.Code) bool {
	arr, ok := reply.Lookup("writeErrors").ArrayOK()
	if !ok {
		return false
	}
	vals, err := arr.Values()
	if err != nil {
		return false
	}
	for _, v := range vals {
		we, ok := v.DocumentOK()
		if !ok {
			continue
		}
		if n, _ := we.Lookup("code").AsInt64OK(); n == int64(code) {
			return true
		}
	}
	return false
}

// dbVersionElems caches the encoded version fields of a database.
type dbVersionElems struct {
	v     configsvr.DatabaseVersion
	elems []byte
}

// unshardedVersionElems encodes shardVersion UNSHARDED and v as
// databaseVersion, as forwardUnsharded adds them (cached per database).
func (r *Router) unshardedVersionElems(db string, v configsvr.DatabaseVersion) ([]byte, error) {
	if e, ok := r.rawVersions.Load(db); ok {
		if c, isDB := e.(*dbVersionElems); isDB && sameDBVersion(c.v, v) {
			return c.elems, nil
		}
	}
	elems, err := encodeElems(bson.D{
		{Key: "shardVersion", Value: shardsvr.ShardVersionDoc(shardsvr.Unsharded)},
		{Key: "databaseVersion", Value: v.Doc()},
	})
	if err != nil {
		return nil, err
	}
	r.rawVersions.Store(db, &dbVersionElems{v: v, elems: elems})
	return elems, nil
}

func sameDBVersion(a, b configsvr.DatabaseVersion) bool {
	return a.Timestamp == b.Timestamp && a.LastMod == b.LastMod &&
		a.UUID.Subtype == b.UUID.Subtype && bytes.Equal(a.UUID.Data, b.UUID.Data)
}

// collVersionElems caches the encoded shardVersion fields of one routing
// table, per shard (the map is replaced, never changed, once stored).
type collVersionElems struct {
	cm      *routing.ChunkManager
	byShard map[string][]byte
}

// shardVersionElems encodes shard's placement version in cm as
// shardVersion, as withVersion sets it (cached per namespace and table).
func (r *Router) shardVersionElems(ns string, cm *routing.ChunkManager, shard string) ([]byte, error) {
	var old map[string][]byte
	if e, ok := r.rawVersions.Load(ns); ok {
		if c, isColl := e.(*collVersionElems); isColl && c.cm == cm {
			if elems, ok := c.byShard[shard]; ok {
				return elems, nil
			}
			old = c.byShard
		}
	}
	elems, err := encodeElems(bson.D{{Key: "shardVersion", Value: shardsvr.ShardVersionDoc(cm.PlacementVersion(shard))}})
	if err != nil {
		return nil, err
	}
	byShard := make(map[string][]byte, len(old)+1)
	for k, v := range old {
		byShard[k] = v
	}
	byShard[shard] = elems
	r.rawVersions.Store(ns, &collVersionElems{cm: cm, byShard: byShard})
	return elems, nil
}

// encodeElems returns d's elements as BSON bytes (no length, no NUL).
func encodeElems(d bson.D) ([]byte, error) {
	b, err := bsonx.Encode(d)
	if err != nil {
		return nil, fmt.Errorf("encoding %v: %w", d, err)
	}
	return b[4 : len(b)-1], nil
}

// bodyBufs are reusable buffers for forwarded bodies (the pool's
// connection copies a body into its own buffer before RunMsg returns);
// maxPooledBody keeps large inserts' buffers out of the pool.
var bodyBufs = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledBody = 64 << 10

// appendElems appends doc with elems (encoded elements) added at its end
// to dst.
func appendElems(dst, doc, elems []byte) []byte {
	at := len(dst)
	dst = append(dst, doc[:len(doc)-1]...)
	dst = append(append(dst, elems...), 0)
	binary.LittleEndian.PutUint32(dst[at:], uint32(len(dst)-at))
	return dst
}
