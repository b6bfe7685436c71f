package command

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Info describes the process for hello, buildInfo and serverStatus.
type Info struct {
	Host      string // host:port as clients reach it
	Version   string // MongoDB-compatible version we claim
	GitCommit string
	StartTime time.Time
	DBPath    string
	Shutdown  func() // asks the process to shut down gracefully
	// ClusterRole is "configsvr", "shardsvr" or "" (config.Serve.ClusterRole).
	ClusterRole string
}

// Dispatcher routes requests to commands.
type Dispatcher struct {
	eng      *exec.Engine
	info     Info
	log      *slog.Logger
	metrics  *Metrics
	repl     Replication // nil on a standalone
	sessions sessionCache
	done     chan struct{} // closed when the process begins shutting down
	once     sync.Once
	base     struct {
		once sync.Once
		ctx  context.Context // cancelled when done closes (shutdownContext)
	}

	shardVersioner ShardVersioner  // nil unless a shard (--shardsvr)
	authOn         bool            // --auth: see auth.go
	mechs          auth.Mechanisms // authenticationMechanisms: see mechanisms.go
	allow          *allowlistState // the IP allowlist (allowlist.go); nil: none

	system *auth.Credentials // __system@local's, from the key file (keyfile.go); nil without one
	// x509Member is the O/OU/DC of this member's certificate when members
	// may log in with x.509 (x509_member.go); "" when they may not.
	x509Member string
}

// NewDispatcher returns a dispatcher over eng.
func NewDispatcher(eng *exec.Engine, info Info, log *slog.Logger) *Dispatcher {
	d := &Dispatcher{eng: eng, info: info, log: log, metrics: newMetrics(), done: make(chan struct{})}
	eng.SetProcessInfo(d.processInfo()) // currentop.go
	return d
}

// SetReplication attaches the replica-set coordinator (before serving).
func (d *Dispatcher) SetReplication(r Replication) { d.repl = r }

// Engine returns the executor the commands run on.
func (d *Dispatcher) Engine() *exec.Engine { return d.eng }

// Replication returns the coordinator, nil on a standalone.
func (d *Dispatcher) Replication() Replication { return d.repl }

// BeginShutdown wakes every waiting request (awaitable hello, awaitData).
func (d *Dispatcher) BeginShutdown() { d.once.Do(func() { close(d.done) }) }

func (d *Dispatcher) shuttingDown() <-chan struct{} { return d.done }

// shutdownContext is cancelled when the process begins shutting down: the
// parent of every request's waits (replContext), made once per dispatcher
// rather than a goroutine per request.
func (d *Dispatcher) shutdownContext() context.Context {
	d.base.once.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		d.base.ctx = ctx
		go func() {
			<-d.done
			cancel()
		}()
	})
	return d.base.ctx
}

// Metrics returns the per-request counters.
func (d *Dispatcher) Metrics() *Metrics { return d.metrics }

// ConnOpened counts a new connection (serverStatus connections).
func (d *Dispatcher) ConnOpened() { d.metrics.ConnOpened() }

// ConnClosed counts a closed connection and releases what it held.
func (d *Dispatcher) ConnClosed(c *Conn) { d.metrics.ConnClosed() }

// Handle runs one OP_MSG request and returns the encoded reply document.
func (d *Dispatcher) Handle(conn *Conn, req *Request) []byte {
	db, cmd, err := DecodeMsg(req)
	if err != nil {
		return d.ErrorReply(err)
	}
	return d.run(conn, db, cmd, req)
}

// HandleLegacy runs a command sent as OP_QUERY on "<db>.$cmd" (the first
// hello of many drivers) and returns the encoded reply document.
func (d *Dispatcher) HandleLegacy(conn *Conn, fullName string, query []byte) []byte {
	db, cmd, err := DecodeLegacy(fullName, query)
	if err != nil {
		return d.ErrorReply(err)
	}
	return d.run(conn, db, cmd, &Request{})
}

func (d *Dispatcher) run(conn *Conn, db string, cmd bson.D, req *Request) (out []byte) {
	if len(cmd) == 0 {
		return d.ErrorReply(mongoerr.New(mongoerr.FailedToParse, "Empty command object"))
	}
	name := cmd[0].Key
	c, ok := registry[name]
	if !ok {
		d.metrics.unknown.Add(1)
		return d.ErrorReply(mongoerr.New(mongoerr.CommandNotFound, "no such command: '%s'", name))
	}
	start := time.Now() // one clock read for the session, the op and the metrics
	d.sessions.touch(cmd, start)
	ctx := &Ctx{D: d, Conn: conn, DB: db, Cmd: cmd, Name: name, Req: req}
	defer d.trackOp(ctx, start)() // currentop.go
	fp := failCommand.check(ctx)
	if fp != nil {
		if err := fp.before(req); err != nil {
			return d.txnErrorReply(name, cmd, err) // txn_labels.go
		}
	}
	if err := maxTimePoint(ctx); err != nil { // failpoint_named.go
		return d.ErrorReply(err)
	}
	reply, err := d.invoke(c, ctx)
	closeAfterTxnWrite(ctx) // failpoint_named.go
	if fp != nil && err == nil {
		reply = fp.after(reply)
	}
	if err == nil {
		reply = LabelRetryableWCE(name, cmd, reply)
	}
	if err == nil {
		reply = d.withWCETopologyVersion(reply) // statechange.go
	}
	d.metrics.observe(c, time.Since(start), err)
	if err != nil {
		return d.txnErrorReply(name, cmd, err) // txn_labels.go
	}
	reply = append(reply, bson.E{Key: "ok", Value: 1.0})
	b, merr := encodeReply(req, reply)
	if merr != nil {
		return d.ErrorReply(fmt.Errorf("encoding %s reply: %w", name, merr))
	}
	if len(b) > maxReplySize {
		return d.ErrorReply(mongoerr.New(mongoerr.BSONObjectTooLarge, "BSONObj size: %d (0x%X) is invalid. Size must be between 0 and 16793600(16MB)", len(b), len(b)))
	}
	return b
}

// encodeReply encodes a successful reply, into req.ReplyBuf when the
// caller lent one (the connection's reused buffer, handed back through
// req.ReplyBuf however it grew), else into a new slice.
func encodeReply(req *Request, reply bson.D) ([]byte, error) {
	if req.ReplyBuf == nil {
		return bsonx.Encode(reply)
	}
	b, err := bsonx.AppendDocument(req.ReplyBuf[:0], reply)
	req.ReplyBuf = b[:0] // grown: the caller keeps the larger buffer
	return b, err
}

// maxReplySize is the 16 MB document limit plus MongoDB's 16 KB headroom.
const maxReplySize = 16*1024*1024 + 16*1024

func (d *Dispatcher) invoke(c *Command, ctx *Ctx) (reply bson.D, err error) {
	defer func() {
		if r := recover(); r != nil {
			d.log.Error("command panicked", "command", c.Name, "panic", r, "stack", string(debug.Stack()))
			reply, err = nil, mongoerr.New(mongoerr.InternalError, "internal error in %s: %v", c.Name, r)
		}
	}()
	if err := d.checkAuth(c, ctx); err != nil {
		return nil, err
	}
	if err := d.checkPrivileges(c, ctx); err != nil {
		return nil, err
	}
	if c.AdminOnly && ctx.DB != "admin" {
		return nil, mongoerr.New(mongoerr.Unauthorized, "%s may only be run against the admin database.", c.Name)
	}
	if err := checkUnknown(c, ctx.Cmd); err != nil {
		return nil, err
	}
	if err := checkAPIParams(ctx); err != nil {
		return nil, err
	}
	if err := d.gossipIn(ctx.Cmd); err != nil {
		return nil, err
	}
	if err := d.checkTransaction(ctx); err != nil {
		return nil, err
	}
	if err := checkSnapshotReadConcern(ctx); err != nil {
		return nil, err
	}
	if err := d.checkChangeStream(ctx); err != nil {
		return nil, err
	}
	if err := d.checkRole(c, ctx); err != nil {
		return nil, err
	}
	reply, handled, release, err := d.checkShardVersion(c, ctx)
	if err != nil {
		return nil, err
	}
	if release != nil {
		defer release()
	}
	if !handled {
		reply, err = d.callWriting(c, ctx)
	}
	if err == nil && d.repl != nil {
		reply = d.opTimeFields(reply)
	}
	return reply, err
}

// checkUnknown rejects fields the command does not take (40415) before
// the role checks, as MongoDB's parser runs first.
func checkUnknown(c *Command, cmd bson.D) error { return c.Def.spec.CheckUnknown(cmd) }

// ErrorReply encodes err as MongoDB's error reply {ok:0, errmsg, code, codeName}.
func (d *Dispatcher) ErrorReply(err error) []byte {
	b, _ := bson.Marshal(append(ErrorDoc(err), d.stateChangeFields(mongoerr.From(err).Code, mongoerr.OK)...))
	return b
}

// ErrorDoc is err as MongoDB's error reply document: ok 0, errmsg, code,
// codeName, a duplicate key's keyPattern/keyValue, the error's extra info
// (StaleConfig's fields) and errorLabels. Data nodes and routers answer
// with it.
func ErrorDoc(err error) bson.D {
	me := mongoerr.From(err)
	doc := bson.D{
		{Key: "ok", Value: 0.0},
		{Key: "errmsg", Value: me.Msg},
		{Key: "code", Value: int32(me.Code)},
		{Key: "codeName", Value: me.Code.Name()},
	}
	var dk *catalog.DuplicateKeyError
	if errors.As(err, &dk) {
		doc = append(doc, bson.E{Key: "keyPattern", Value: dk.KeyPattern}, bson.E{Key: "keyValue", Value: dk.KeyValue})
	}
	doc = append(doc, extraInfo(err)...)
	if len(me.Labels) > 0 {
		labels := make(bson.A, len(me.Labels))
		for i, l := range me.Labels {
			labels[i] = l
		}
		doc = append(doc, bson.E{Key: "errorLabels", Value: labels})
	}
	return doc
}
