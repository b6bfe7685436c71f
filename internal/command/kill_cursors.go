package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func killCursors(c *Ctx, p *request.KillCursors) (bson.D, error) {
	killed, notFound := bson.A{}, bson.A{}
	ids := make([]int64, len(p.Cursors))
	for i, v := range p.Cursors {
		id, isLong := cursorID(v)
		if !isLong {
			return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'killCursors.cursors' is the wrong type '%s', expected type 'long'", bsonx.TypeAlias(v))
		}
		if err := c.checkKillCursor(id, string(p.Collection)); err != nil {
			return nil, err // before any is killed, as MongoDB checks them all first
		}
		ids[i] = id
	}
	for _, id := range ids {
		if c.D.eng.Cursors().Kill(id) {
			killed = append(killed, id)
		} else {
			notFound = append(notFound, id)
		}
	}
	return bson.D{
		{Key: "cursorsKilled", Value: killed},
		{Key: "cursorsNotFound", Value: notFound},
		{Key: "cursorsAlive", Value: bson.A{}},
		{Key: "cursorsUnknown", Value: bson.A{}},
	}, nil
}

// cursorID accepts a cursor id sent as long or int (some clients send small
// ids as int32).
func cursorID(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int32:
		return int64(n), true
	}
	return 0, false
}
