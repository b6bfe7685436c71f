package command

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth"
	"github.com/relaydb/relaydb/internal/auth/privilege"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// killOp {op: <opid>} interrupts a running operation (the opid currentOp
// reports). Each registered operation (currentop.go) has a context that
// killOp cancels; the operation sees it at its interruption points and
// fails with Interrupted (11601): waits bounded by replContext (write
// concern, replSet commands), an awaitData getMore's wait, and between
// the documents of a find, aggregate or getMore batch (exec.Cursor's
// Interrupt). A killed getMore closes its cursor, as MongoDB's does.
// Under --auth a user may kill the operations of its own connection's
// users; others need killop on the cluster.
//
// TODO(#14): a blocking stage (sort, group) or a scan that returns no
// document sees the kill only when it yields a document; writes are not
// interrupted (JavaScript is: internal/js).

// registeredOp is the operation trackOp registered for c (Ctx.op), or nil.
func (c *Ctx) registeredOp() *runningOp { return c.op }

// opContext is cancelled when c's operation is killed or the process
// shuts down.
func (c *Ctx) opContext() context.Context {
	if op := c.registeredOp(); op != nil {
		return op.context()
	}
	return c.D.shutdownContext()
}

// interrupted is Interrupted once c's operation has been killed.
func (c *Ctx) interrupted() error {
	if op := c.registeredOp(); op != nil && op.killed.Load() {
		return mongoerr.New(mongoerr.Interrupted, "operation was interrupted")
	}
	return nil
}

func killOp(c *Ctx, p *request.KillOp) (bson.D, error) {
	if p.Op == nil {
		return nil, mongoerr.New(mongoerr.BadValue, "Did not provide \"op\" field")
	}
	id, ok := bsonx.AsInt64(p.Op)
	if !ok {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "\"op\" must be a number, got %v", p.Op)
	}
	op := c.D.findOp(id)
	if op != nil {
		if err := c.checkKillOp(op); err != nil {
			return nil, err
		}
		op.kill()
	}
	return bson.D{{Key: "info", Value: "attempting to kill op"}}, nil
}

// findOp returns the running operation id, or nil.
func (d *Dispatcher) findOp(id int64) *runningOp {
	r := d.ops()
	r.mu.Lock()
	defer r.mu.Unlock()
	if id < 0 || id > int64(^uint32(0)>>1) {
		return nil
	}
	return r.mu.ops[int32(id)]
}

// checkKillOp lets a connection kill op when it holds killop on the
// cluster or shares a user with op's connection.
func (c *Ctx) checkKillOp(op *runningOp) error {
	if !c.D.authOn {
		return nil
	}
	if set, _ := c.connPrivileges(); set.Allows([]privilege.Need{{Cluster: true, Actions: privilege.Killop}}) {
		return nil
	}
	if c.ownsOp(op) {
		return nil
	}
	return mongoerr.New(mongoerr.Unauthorized, "not authorized on admin to execute command { killOp: 1, op: %d }", op.id)
}

// ownsOp reports whether op runs for one of c's users (always without
// --auth).
func (c *Ctx) ownsOp(op *runningOp) bool {
	if !c.D.authOn {
		return true
	}
	return op.conn != nil && auth.Coauthorized(connUserKeys(op.conn), c.cursorUsers())
}

// connUserKeys are the users authenticated on conn ("db.user", sorted).
func connUserKeys(conn *Conn) []string {
	users := conn.authUsers()
	keys := make([]string, len(users))
	for i, u := range users {
		keys[i] = auth.UserKey(u.db, u.user)
	}
	return auth.SortedOwners(keys)
}
