package command

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/query"
)

// Running operations, for currentOp and $currentOp: every command is
// registered while it runs (Dispatcher.run) with an opid unique in the
// process. Registration is a map insert under a mutex; nothing is
// recorded about finished commands. killOp cancels an operation's
// context (killop.go).
// {$ownOps: true} lists only the operations of the caller's users (and
// needs no inprog privilege), as MongoDB.
// TODO(#14): idle connections ($all / idleConnections); $currentOp's
// allUsers/idleConnections/idleCursors/idleSessions/localOps options.

type opRegistry struct {
	mu struct {
		sync.Mutex
		next int32
		ops  map[int32]*runningOp
	}
}

type runningOp struct {
	id    int32
	conn  *Conn
	db    string
	cmd   bson.D
	start time.Time
	// ctx is made on first use (opctx.go) and cancelled by killOp (killed
	// set first) or when the command ends; killop.go.
	ctxMu  sync.Mutex
	ctx    context.Context
	cancel context.CancelFunc
	ended  bool // under ctxMu: a context made now starts cancelled
	parent func() context.Context
	killed atomic.Bool
}

// registries holds each dispatcher's registry (a process may run several
// nodes in tests).
var registries sync.Map // *Dispatcher → *opRegistry

func (d *Dispatcher) ops() *opRegistry {
	if r, ok := registries.Load(d); ok {
		return r.(*opRegistry)
	}
	r, _ := registries.LoadOrStore(d, &opRegistry{})
	return r.(*opRegistry)
}

// trackOp registers the command of ctx, started at start, and returns its
// deregistration.
func (d *Dispatcher) trackOp(ctx *Ctx, start time.Time) func() {
	r := d.ops()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mu.ops == nil {
		r.mu.ops = map[int32]*runningOp{}
	}
	r.mu.next++
	op := &runningOp{id: r.mu.next, conn: ctx.Conn, db: ctx.DB, cmd: ctx.Cmd, start: start,
		parent: d.shutdownContext}
	r.mu.ops[op.id] = op
	ctx.op = op // killop.go
	return func() {
		r.mu.Lock()
		delete(r.mu.ops, op.id)
		r.mu.Unlock()
		op.end()
	}
}

// processInfo is what the engine shows for $currentOp and $indexStats.
func (d *Dispatcher) processInfo() exec.ProcessInfo {
	return exec.ProcessInfo{Host: d.info.Host, Start: d.info.StartTime, Ops: func() ([]bson.D, error) { return d.inprog(), nil }}
}

// inprog describes the running operations, oldest first.
func (d *Dispatcher) inprog() []bson.D { return d.inprogOf(nil) }

// inprogOf describes the running operations keep accepts (nil: all).
func (d *Dispatcher) inprogOf(keep func(*runningOp) bool) []bson.D {
	r := d.ops()
	r.mu.Lock()
	ops := make([]*runningOp, 0, len(r.mu.ops))
	for _, op := range r.mu.ops {
		if keep == nil || keep(op) {
			ops = append(ops, op)
		}
	}
	r.mu.Unlock()
	out := make([]bson.D, 0, len(ops))
	now := time.Now()
	for _, op := range sortedOps(ops) {
		out = append(out, d.opDoc(op, now))
	}
	return out
}

func sortedOps(ops []*runningOp) []*runningOp {
	for i := 1; i < len(ops); i++ {
		for j := i; j > 0 && ops[j].id < ops[j-1].id; j-- {
			ops[j], ops[j-1] = ops[j-1], ops[j]
		}
	}
	return ops
}

func (d *Dispatcher) opDoc(op *runningOp, now time.Time) bson.D {
	run := now.Sub(op.start)
	doc := bson.D{{Key: "type", Value: "op"}, {Key: "host", Value: d.info.Host}}
	if op.conn != nil {
		doc = append(doc, bson.E{Key: "desc", Value: fmt.Sprintf("conn%d", op.conn.ID)},
			bson.E{Key: "connectionId", Value: int32(op.conn.ID)}, bson.E{Key: "client", Value: op.conn.Remote})
		if app := op.conn.appName(); app != "" {
			doc = append(doc, bson.E{Key: "appName", Value: app})
		}
	}
	return append(doc,
		bson.E{Key: "active", Value: true},
		bson.E{Key: "currentOpTime", Value: now.UTC().Format("2006-01-02T15:04:05.000Z07:00")},
		bson.E{Key: "opid", Value: op.id},
		bson.E{Key: "secs_running", Value: int64(run / time.Second)},
		bson.E{Key: "microsecs_running", Value: int64(run / time.Microsecond)},
		bson.E{Key: "op", Value: opType(op.cmd)},
		bson.E{Key: "ns", Value: opNS(op.db, op.cmd)},
		bson.E{Key: "command", Value: truncatedCommand(op.cmd)},
	)
}

// opType is currentOp's "op": MongoDB's names for CRUD, else "command".
func opType(cmd bson.D) string {
	switch cmd[0].Key {
	case "find":
		return "query"
	case "insert", "update":
		return cmd[0].Key
	case "delete":
		return "remove"
	case "getMore":
		return "getmore"
	}
	return "command"
}

func opNS(db string, cmd bson.D) string {
	if coll, ok := cmd[0].Value.(string); ok && cmd[0].Key != "getMore" {
		return db + "." + coll
	}
	if coll, ok := bsonx.Get(cmd, "collection"); ok {
		if s, ok := coll.(string); ok {
			return db + "." + s
		}
	}
	return db + ".$cmd"
}

// truncatedCommand keeps a command document up to 1 KB, as MongoDB's
// currentOp does; a larger one becomes {$truncated: <its start>}.
func truncatedCommand(cmd bson.D) any {
	b, err := bsonx.Encode(cmd)
	if err == nil && len(b) <= 1024 {
		return cmd
	}
	s := fmt.Sprint(cmd)
	if len(s) > 1000 {
		s = s[:1000]
	}
	return bson.D{{Key: "$truncated", Value: s}}
}

func currentOp(c *Ctx, p *request.CurrentOp) (bson.D, error) {
	m, err := query.Compile(p.Rest)
	if err != nil {
		return nil, err
	}
	var keep func(*runningOp) bool
	if p.OwnOps != nil && *p.OwnOps {
		keep = c.ownsOp // killop.go
	}
	inprog := bson.A{}
	for _, op := range c.D.inprogOf(keep) {
		if m.Match(op) {
			inprog = append(inprog, op)
		}
	}
	return bson.D{{Key: "inprog", Value: inprog}}, nil
}
