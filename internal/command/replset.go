package command

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// The replSet* commands: the coordinator (package repl, through
// Replication) runs them; a standalone answers NoReplicationEnabled as
// mongod without --replSet does. The internal ones (heartbeat, votes,
// positions) are sent by other members. The coordinator parses their
// arguments itself, so each struct keeps every field (Args) as sent.

func replSetInitiate(c *Ctx, _ *request.ReplSetInitiate) (bson.D, error) {
	return c.onRepl(func(r Replication) (bson.D, error) { return r.ReplSetInitiate(c.Cmd) })
}

func replSetGetConfig(c *Ctx, _ *request.ReplSetGetConfig) (bson.D, error) {
	return c.onRepl(func(r Replication) (bson.D, error) { return r.ReplSetGetConfig() })
}

func replSetReconfig(c *Ctx, _ *request.ReplSetReconfig) (bson.D, error) {
	return c.onRepl(func(r Replication) (bson.D, error) { return r.ReplSetReconfig(c.Cmd) })
}

func replSetGetStatus(c *Ctx, _ *request.ReplSetGetStatus) (bson.D, error) {
	return c.onRepl(func(r Replication) (bson.D, error) { return r.ReplSetGetStatus() })
}

func replSetStepDown(c *Ctx, _ *request.ReplSetStepDown) (bson.D, error) {
	return c.onRepl(func(r Replication) (bson.D, error) {
		ctx, cancel := c.replContext()
		defer cancel()
		return r.ReplSetStepDown(ctx, c.Cmd)
	})
}

func replSetFreeze(c *Ctx, _ *request.ReplSetFreeze) (bson.D, error) {
	return c.onRepl(func(r Replication) (bson.D, error) { return r.ReplSetFreeze(c.Cmd) })
}

func replSetSyncFrom(c *Ctx, _ *request.ReplSetSyncFrom) (bson.D, error) {
	return c.onRepl(func(r Replication) (bson.D, error) { return r.ReplSetSyncFrom(c.Cmd) })
}

func replSetMaintenance(c *Ctx, _ *request.ReplSetMaintenance) (bson.D, error) {
	return c.onRepl(func(r Replication) (bson.D, error) { return r.ReplSetMaintenance(c.Cmd) })
}

func replSetHeartbeat(c *Ctx, _ *request.ReplSetHeartbeat) (bson.D, error) {
	return c.onRepl(func(r Replication) (bson.D, error) { return r.ReplSetHeartbeat(c.Cmd) })
}

func replSetRequestVotes(c *Ctx, _ *request.ReplSetRequestVotes) (bson.D, error) {
	return c.onRepl(func(r Replication) (bson.D, error) { return r.ReplSetRequestVotes(c.Cmd) })
}

func replSetUpdatePosition(c *Ctx, _ *request.ReplSetUpdatePosition) (bson.D, error) {
	return c.onRepl(func(r Replication) (bson.D, error) { return r.ReplSetUpdatePosition(c.Cmd) })
}

// onRepl runs fn on the coordinator, or answers NoReplicationEnabled on a
// standalone.
func (c *Ctx) onRepl(fn func(Replication) (bson.D, error)) (bson.D, error) {
	r := c.D.Replication()
	if r == nil {
		return nil, mongoerr.New(mongoerr.NoReplicationEnabled, "not running with --replSet")
	}
	return fn(r)
}

// replContext bounds a replSet command by maxTimeMS and process shutdown.
func (c *Ctx) replContext() (context.Context, context.CancelFunc) {
	ctx := c.opContext() // killOp or shutdown: killop.go
	if ms, ok, _ := c.int64Field("maxTimeMS"); ok && ms > 0 {
		return context.WithTimeout(ctx, time.Duration(ms)*time.Millisecond)
	}
	return context.WithCancel(ctx) // a child of a cancelCtx: no goroutine
}
