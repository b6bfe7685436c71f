package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// checkRole applies the replica-set gates: writes need a writable primary,
// reads a primary or a secondary the client allows (secondaryOk).
func (d *Dispatcher) checkRole(c *Command, ctx *Ctx) error {
	if d.repl == nil {
		return nil
	}
	if c.Write {
		return d.repl.CheckWrite(ctx.DB)
	}
	if c.Read && ctx.DB != "local" {
		return d.repl.CheckRead(secondaryOk(ctx.Cmd))
	}
	return nil
}

// secondaryOk reports whether the request's $readPreference allows a
// secondary to answer (any mode but primary), as drivers express it in
// OP_MSG; drivers connected directly to one member send primaryPreferred.
func secondaryOk(cmd bson.D) bool {
	rp, ok := bsonx.Get(cmd, "$readPreference")
	if !ok {
		return false
	}
	d, _ := rp.(bson.D)
	mode, _ := bsonx.Get(d, "mode")
	return mode != nil && mode != "primary"
}
