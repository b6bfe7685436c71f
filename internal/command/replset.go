package command

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// The replSet* commands: the coordinator (package repl, through
// Replication) runs them; a standalone answers NoReplicationEnabled as
// mongod without --replSet does. The internal ones (heartbeat, votes,
// positions) are sent by other members. The coordinator parses their
// arguments itself, so each struct keeps every field (Args) as sent.

// ReplSetInitiate is replSetInitiate: {replSetInitiate: <config or nothing>}.
type ReplSetInitiate struct {
	cmdspec.Cmd `cmd:"replSetInitiate" roles:"primary,secondary"`
	Config      any    `cmd:",command"`
	Args        bson.D `cmd:",inline"`
}

// ReplSetGetConfig is replSetGetConfig.
type ReplSetGetConfig struct {
	cmdspec.Cmd `cmd:"replSetGetConfig" roles:"primary,secondary"`
	Value       any    `cmd:",command"`
	Args        bson.D `cmd:",inline"`
}

// ReplSetReconfig is replSetReconfig: {replSetReconfig: <config>, force}.
type ReplSetReconfig struct {
	cmdspec.Cmd `cmd:"replSetReconfig" roles:"primary,secondary"`
	Config      any    `cmd:",command"`
	Args        bson.D `cmd:",inline"`
}

// ReplSetGetStatus is replSetGetStatus.
type ReplSetGetStatus struct {
	cmdspec.Cmd `cmd:"replSetGetStatus" roles:"primary,secondary"`
	Value       any    `cmd:",command"`
	Args        bson.D `cmd:",inline"`
}

// ReplSetStepDown is replSetStepDown: {replSetStepDown: <secs>,
// secondaryCatchUpPeriodSecs, force}.
type ReplSetStepDown struct {
	cmdspec.Cmd `cmd:"replSetStepDown" roles:"primary,secondary"`
	Secs        any    `cmd:",command"`
	Args        bson.D `cmd:",inline"`
}

// ReplSetFreeze is replSetFreeze: {replSetFreeze: <secs>}.
type ReplSetFreeze struct {
	cmdspec.Cmd `cmd:"replSetFreeze" roles:"primary,secondary"`
	Secs        any    `cmd:",command"`
	Args        bson.D `cmd:",inline"`
}

// ReplSetSyncFrom is replSetSyncFrom: {replSetSyncFrom: <host>}.
type ReplSetSyncFrom struct {
	cmdspec.Cmd `cmd:"replSetSyncFrom" roles:"primary,secondary"`
	Host        any    `cmd:",command"`
	Args        bson.D `cmd:",inline"`
}

// ReplSetMaintenance is replSetMaintenance: {replSetMaintenance: <bool>}.
type ReplSetMaintenance struct {
	cmdspec.Cmd `cmd:"replSetMaintenance" roles:"primary,secondary"`
	On          any    `cmd:",command"`
	Args        bson.D `cmd:",inline"`
}

// ReplSetHeartbeat is the member-to-member heartbeat.
type ReplSetHeartbeat struct {
	cmdspec.Cmd `cmd:"replSetHeartbeat" roles:"primary,secondary"`
	Value       any    `cmd:",command"`
	Args        bson.D `cmd:",inline"`
}

// ReplSetRequestVotes is an election's vote request.
type ReplSetRequestVotes struct {
	cmdspec.Cmd `cmd:"replSetRequestVotes" roles:"primary,secondary"`
	Value       any    `cmd:",command"`
	Args        bson.D `cmd:",inline"`
}

// ReplSetUpdatePosition reports downstream members' progress.
type ReplSetUpdatePosition struct {
	cmdspec.Cmd `cmd:"replSetUpdatePosition" roles:"primary,secondary"`
	Value       any    `cmd:",command"`
	Args        bson.D `cmd:",inline"`
}

func replSetInitiate(c *Ctx, _ *ReplSetInitiate) (bson.D, error) {
	return c.onRepl(func(r Replication) (bson.D, error) { return r.ReplSetInitiate(c.Cmd) })
}

func replSetGetConfig(c *Ctx, _ *ReplSetGetConfig) (bson.D, error) {
	return c.onRepl(func(r Replication) (bson.D, error) { return r.ReplSetGetConfig() })
}

func replSetReconfig(c *Ctx, _ *ReplSetReconfig) (bson.D, error) {
	return c.onRepl(func(r Replication) (bson.D, error) { return r.ReplSetReconfig(c.Cmd) })
}

func replSetGetStatus(c *Ctx, _ *ReplSetGetStatus) (bson.D, error) {
	return c.onRepl(func(r Replication) (bson.D, error) { return r.ReplSetGetStatus() })
}

func replSetStepDown(c *Ctx, _ *ReplSetStepDown) (bson.D, error) {
	return c.onRepl(func(r Replication) (bson.D, error) {
		ctx, cancel := c.replContext()
		defer cancel()
		return r.ReplSetStepDown(ctx, c.Cmd)
	})
}

func replSetFreeze(c *Ctx, _ *ReplSetFreeze) (bson.D, error) {
	return c.onRepl(func(r Replication) (bson.D, error) { return r.ReplSetFreeze(c.Cmd) })
}

func replSetSyncFrom(c *Ctx, _ *ReplSetSyncFrom) (bson.D, error) {
	return c.onRepl(func(r Replication) (bson.D, error) { return r.ReplSetSyncFrom(c.Cmd) })
}

func replSetMaintenance(c *Ctx, _ *ReplSetMaintenance) (bson.D, error) {
	return c.onRepl(func(r Replication) (bson.D, error) { return r.ReplSetMaintenance(c.Cmd) })
}

func replSetHeartbeat(c *Ctx, _ *ReplSetHeartbeat) (bson.D, error) {
	return c.onRepl(func(r Replication) (bson.D, error) { return r.ReplSetHeartbeat(c.Cmd) })
}

func replSetRequestVotes(c *Ctx, _ *ReplSetRequestVotes) (bson.D, error) {
	return c.onRepl(func(r Replication) (bson.D, error) { return r.ReplSetRequestVotes(c.Cmd) })
}

func replSetUpdatePosition(c *Ctx, _ *ReplSetUpdatePosition) (bson.D, error) {
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
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	if ms, ok, _ := c.int64Field("maxTimeMS"); ok && ms > 0 {
		ctx, cancel = context.WithTimeout(ctx, time.Duration(ms)*time.Millisecond)
	}
	ctx, cancel2 := context.WithCancel(ctx)
	go func() {
		select {
		case <-c.D.shuttingDown():
			cancel2()
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel2(); cancel() }
}
