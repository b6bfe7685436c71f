package command

import (
	"crypto/rand"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Sessions: drivers send lsid with every command and endSessions when they
// close. relaydb accepts them; a standalone has no transactions. The
// structs take any field (Rest): relaydb reads none but endSessions' ids.

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

// accepted answers ok and does nothing.
func accepted[T any](*Ctx, *T) (bson.D, error) { return bson.D{}, nil }

// noTransactions answers commitTransaction and abortTransaction.
func noTransactions[T any](*Ctx, *T) (bson.D, error) {
	return nil, mongoerr.New(mongoerr.IllegalOperation, "Transaction numbers are only allowed on a replica set member or mongos")
}

func startSession(*Ctx, *StartSession) (bson.D, error) {
	var id [16]byte
	rand.Read(id[:])
	id[6] = id[6]&0x0f | 0x40
	id[8] = id[8]&0x3f | 0x80
	return bson.D{
		{Key: "id", Value: bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: id[:]}}}},
		{Key: "timeoutMinutes", Value: int32(30)},
	}, nil
}

func endSessions(c *Ctx, p *EndSessions) (bson.D, error) {
	ids, _ := p.IDs.(bson.A)
	for _, v := range ids {
		if d, ok := v.(bson.D); ok {
			if id, ok := lsidOf(bson.D{{Key: "lsid", Value: d}}); ok {
				c.D.sessions.forget(id)
			}
		}
	}
	return bson.D{}, nil
}
