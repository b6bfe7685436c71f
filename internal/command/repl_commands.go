package command

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// codeNoReplicationEnabled is MongoDB's NoReplicationEnabled (76).
const codeNoReplicationEnabled mongoerr.Code = 76

// replCommands are the replSet* commands, all run by the coordinator
// (package repl) through Replication.RunCommand. The internal ones
// (heartbeat, votes, positions) are sent by other members.
var replCommands = []struct {
	name, help string
}{
	{"replSetInitiate", "initiates a replica set (default: this host alone)"},
	{"replSetGetConfig", "returns the replica-set config"},
	{"replSetReconfig", "installs a new replica-set config"},
	{"replSetGetStatus", "reports the replica set's members and optimes"},
	{"replSetStepDown", "makes the primary step down"},
	{"replSetFreeze", "keeps this member from standing for election"},
	{"replSetSyncFrom", "overrides the sync source"},
	{"replSetMaintenance", "enters or leaves maintenance mode (RECOVERING)"},
	{"replSetHeartbeat", "internal: member-to-member heartbeat"},
	{"replSetRequestVotes", "internal: election vote request"},
	{"replSetUpdatePosition", "internal: replication progress of downstream members"},
}

func init() {
	for _, rc := range replCommands {
		register(&Command{Name: rc.name, Help: rc.help, AdminOnly: true, Handler: replSetCmd})
	}
}

// replSetCmd hands the command to the coordinator; a standalone answers
// NoReplicationEnabled as mongod without --replSet does.
func replSetCmd(c *Ctx) (bson.D, error) {
	r := c.D.Replication()
	if r == nil {
		return nil, mongoerr.New(codeNoReplicationEnabled, "not running with --replSet")
	}
	ctx, cancel := c.replContext()
	defer cancel()
	return r.RunCommand(ctx, c.Name, c.Cmd)
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
