package command

import (
	"crypto/rand"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Sessions: drivers send lsid with every command and endSessions when they
// close. relaydb accepts them; a standalone has no transactions.
func init() {
	ok := func(*Ctx) (bson.D, error) { return bson.D{}, nil }
	register(&Command{Name: "startSession", Help: "starts a logical session", Handler: startSessionCmd})
	register(&Command{Name: "endSessions", Help: "ends logical sessions", Handler: endSessionsCmd})
	register(&Command{Name: "refreshSessions", Help: "refreshes logical sessions (accepted)", Handler: ok})
	register(&Command{Name: "killSessions", Help: "kills logical sessions (accepted)", Handler: ok})
	register(&Command{Name: "killAllSessions", Help: "kills all sessions (accepted)", Handler: ok})
	register(&Command{Name: "killAllSessionsByPattern", Help: "kills sessions (accepted)", Handler: ok})
	noTxn := func(c *Ctx) (bson.D, error) {
		return nil, mongoerr.New(mongoerr.IllegalOperation, "Transaction numbers are only allowed on a replica set member or mongos")
	}
	register(&Command{Name: "commitTransaction", Help: "transactions need a replica set", AdminOnly: true, Handler: noTxn})
	register(&Command{Name: "abortTransaction", Help: "transactions need a replica set", AdminOnly: true, Handler: noTxn})
}

func startSessionCmd(c *Ctx) (bson.D, error) {
	var id [16]byte
	rand.Read(id[:])
	id[6] = id[6]&0x0f | 0x40
	id[8] = id[8]&0x3f | 0x80
	return bson.D{
		{Key: "id", Value: bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: id[:]}}}},
		{Key: "timeoutMinutes", Value: int32(30)},
	}, nil
}

func endSessionsCmd(c *Ctx) (bson.D, error) {
	ids, _ := c.Cmd[0].Value.(bson.A)
	for _, v := range ids {
		if d, ok := v.(bson.D); ok {
			if id, ok := lsidOf(bson.D{{Key: "lsid", Value: d}}); ok {
				c.D.sessions.forget(id)
			}
		}
	}
	return bson.D{}, nil
}
