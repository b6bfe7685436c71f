package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// checkChangeStream refuses an aggregate whose pipeline opens with
// $changeStream: a standalone as MongoDB does (40573), a replica-set
// member with NotImplemented until change streams exist (TODO(#14):
// change streams).
func (d *Dispatcher) checkChangeStream(ctx *Ctx) error {
	if ctx.Name != "aggregate" {
		return nil
	}
	v, _ := ctx.field("pipeline")
	pipeline, _ := v.(bson.A)
	if len(pipeline) == 0 {
		return nil
	}
	first, _ := pipeline[0].(bson.D)
	if len(first) == 0 || first[0].Key != "$changeStream" {
		return nil
	}
	if d.repl == nil {
		return mongoerr.New(mongoerr.ChangeStreamNeedsReplicaSet, "The $changeStream stage is only supported on replica sets")
	}
	return mongoerr.New(mongoerr.NotImplemented, "relaydb does not support change streams ($changeStream) yet")
}
