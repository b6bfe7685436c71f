package request

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
)

// StartSession is the startSession command.
type StartSession struct {
	cmdspec.Cmd `cmd:"startSession" roles:"primary,secondary,router"`
	Value       any    `cmd:",command"`
	Rest        bson.D `cmd:",inline"`
}

// EndSessions is {endSessions: [{id: <uuid>}, ...]}.
type EndSessions struct {
	cmdspec.Cmd `cmd:"endSessions" roles:"primary,secondary,router"`
	IDs         any    `cmd:",command"`
	Rest        bson.D `cmd:",inline"`
}

// RefreshSessions is the refreshSessions command (accepted).
type RefreshSessions struct {
	cmdspec.Cmd `cmd:"refreshSessions" roles:"primary,secondary,router"`
	IDs         any    `cmd:",command"`
	Rest        bson.D `cmd:",inline"`
}

// KillSessions is the killSessions command (accepted).
type KillSessions struct {
	cmdspec.Cmd `cmd:"killSessions" roles:"primary,secondary,router"`
	IDs         any    `cmd:",command"`
	Rest        bson.D `cmd:",inline"`
}

// KillAllSessions is the killAllSessions command (accepted).
type KillAllSessions struct {
	cmdspec.Cmd `cmd:"killAllSessions" roles:"primary,secondary,router"`
	Users       any    `cmd:",command"`
	Rest        bson.D `cmd:",inline"`
}

// KillAllSessionsByPattern is the killAllSessionsByPattern command (accepted).
type KillAllSessionsByPattern struct {
	cmdspec.Cmd `cmd:"killAllSessionsByPattern" roles:"primary,secondary,router"`
	Patterns    any    `cmd:",command"`
	Rest        bson.D `cmd:",inline"`
}

// CommitTransaction is the commitTransaction command.
type CommitTransaction struct {
	cmdspec.Cmd `cmd:"commitTransaction" roles:"primary,secondary,router"`
	Value       any    `cmd:",command"`
	Rest        bson.D `cmd:",inline"`
}

// AbortTransaction is the abortTransaction command.
type AbortTransaction struct {
	cmdspec.Cmd `cmd:"abortTransaction" roles:"primary,secondary,router"`
	Value       any    `cmd:",command"`
	Rest        bson.D `cmd:",inline"`
}
