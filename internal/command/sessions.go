package command

import (
	"crypto/rand"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
)

// Sessions: drivers send lsid with every command and endSessions when they
// close. relaydb accepts them; a standalone has no transactions. The
// structs take any field (Rest): relaydb reads none but endSessions' ids.

// accepted answers ok and does nothing.
func accepted[T any](*Ctx, *T) (bson.D, error) { return bson.D{}, nil }

func startSession(*Ctx, *request.StartSession) (bson.D, error) {
	var id [16]byte
	rand.Read(id[:])
	id[6] = id[6]&0x0f | 0x40
	id[8] = id[8]&0x3f | 0x80
	return bson.D{
		{Key: "id", Value: bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: id[:]}}}},
		{Key: "timeoutMinutes", Value: int32(30)},
	}, nil
}

func endSessions(c *Ctx, p *request.EndSessions) (bson.D, error) {
	ids, _ := p.IDs.(bson.A)
	for _, v := range ids {
		if d, ok := v.(bson.D); ok {
			if id, ok := lsidOf(bson.D{{Key: "lsid", Value: d}}); ok {
				c.D.sessions.forget(id)
				c.D.forgetTxn(id) // txn_run.go
			}
		}
	}
	return bson.D{}, nil
}
