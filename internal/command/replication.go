package command

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Replication is what the command layer needs from the replica-set
// coordinator (package repl). It is nil on a standalone node, and every
// caller checks for that. See docs/replication.md.
type Replication interface {
	// HelloFields returns the replica-set fields of hello/isMaster
	// (setName, hosts, primary, me, isWritablePrimary, secondary, ...,
	// topologyVersion, lastWrite), replacing the standalone ones.
	HelloFields(legacy bool) bson.D
	// WaitTopologyChange blocks until the topology version differs from
	// the one the client sent (awaitable hello) or ctx ends.
	WaitTopologyChange(ctx context.Context, processID bson.ObjectID, counter int64)
	// CheckWrite fails with NotWritablePrimary unless this member accepts
	// writes to db (the local database is always writable).
	CheckWrite(db string) error
	// CheckRead fails unless this member may serve reads given the
	// client's secondaryOk (readPreference other than primary).
	CheckRead(secondaryOk bool) error
	// WaitWriteConcern blocks until the write at ts satisfies w and j, or
	// ctx ends (wtimeout: WriteConcernFailed).
	WaitWriteConcern(ctx context.Context, ts bson.Timestamp, w any, j bool) error
	// OpTimeFields returns $clusterTime and operationTime for a reply.
	OpTimeFields() bson.D
	ReplSetCommands
}

// ReplSetCommands are the replSet* commands the coordinator runs (the
// command table in commands.go dispatches to them). Each takes the request
// as sent and returns the reply's fields.
type ReplSetCommands interface {
	ReplSetInitiate(cmd bson.D) (bson.D, error)
	ReplSetGetConfig() (bson.D, error)
	ReplSetReconfig(cmd bson.D) (bson.D, error)
	ReplSetGetStatus() (bson.D, error)
	// ReplSetStepDown waits for the step-down's outcome or ctx's end.
	ReplSetStepDown(ctx context.Context, cmd bson.D) (bson.D, error)
	ReplSetFreeze(cmd bson.D) (bson.D, error)
	ReplSetSyncFrom(cmd bson.D) (bson.D, error)
	ReplSetMaintenance(cmd bson.D) (bson.D, error)
	// The internal commands other members send.
	ReplSetHeartbeat(cmd bson.D) (bson.D, error)
	ReplSetRequestVotes(cmd bson.D) (bson.D, error)
	ReplSetUpdatePosition(cmd bson.D) (bson.D, error)
}
