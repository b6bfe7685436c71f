package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/changestream"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Change streams: an aggregate whose pipeline opens with $changeStream
// returns a tailable, awaitData cursor over the change events of a
// collection, a database ({aggregate: 1}) or the cluster (admin,
// allChangesForCluster), read from the majority-committed oplog by
// changestream.Stream. Every reply's cursor carries postBatchResumeToken
// (changestream_cursor.go).
// Pre- and post-images (fullDocument whenAvailable/required,
// fullDocumentBeforeChange) come from the pre-images a collection with
// changeStreamPreAndPostImages keeps in its oplog entries
// (catalog/preimage.go).
// TODO(#14): explain of a change stream.

// checkChangeStream refuses $changeStream on a standalone as MongoDB
// does (40573), before the role checks.
func (d *Dispatcher) checkChangeStream(ctx *Ctx) error {
	if ctx.Name != "aggregate" || d.repl != nil {
		return nil
	}
	v, _ := ctx.field("pipeline")
	if pipeline, _ := v.(bson.A); isChangeStream(pipeline) {
		return mongoerr.New(mongoerr.ChangeStreamNeedsReplicaSet, "The $changeStream stage is only supported on replica sets")
	}
	return nil
}

// isChangeStream reports a pipeline that opens with $changeStream.
func isChangeStream(pipeline bson.A) bool {
	if len(pipeline) == 0 {
		return false
	}
	first, _ := pipeline[0].(bson.D)
	return len(first) > 0 && first[0].Key == "$changeStream"
}

// changeStreamAggregate opens a change stream; coll is the aggregate's
// target ("$cmd.aggregate" for {aggregate: 1}).
func changeStreamAggregate(c *Ctx, a *request.Aggregate, coll string) (bson.D, error) {
	opts, err := changestream.ParseOptions(a.Pipeline[0].(bson.D)[0].Value)
	if err != nil {
		return nil, err
	}
	if err := checkStreamReadConcern(c); err != nil {
		return nil, err
	}
	scopeColl := coll
	if coll == "$cmd.aggregate" {
		scopeColl = ""
	} else if def, err := c.view(coll); err != nil || def != nil {
		if err == nil {
			err = mongoerr.New(mongoerr.CommandNotSupportedOnView, "$changeStream cannot run on a view: %s", c.ns(coll))
		}
		return nil, err
	}
	if _, inTxn := c.field("autocommit"); inTxn {
		return nil, mongoerr.New(mongoerr.OperationNotSupportedInTransaction, "Operation not permitted in transaction :: caused by :: $changeStream is not allowed in a transaction")
	}
	scope, err := changestream.NewScope(c.DB, scopeColl, opts.AllChangesForCluster)
	if err != nil {
		return nil, err
	}
	rest, split, err := changestream.SplitStage(a.Pipeline[1:])
	if err != nil {
		return nil, err
	}
	post, err := changeStreamStages(c, a, rest)
	if err != nil {
		return nil, err
	}
	if lenient(a.Explain) {
		return bson.D{{Key: "stages", Value: a.Pipeline}}, nil
	}
	n, err := cursorBatchSize(a.Cursor)
	if err != nil {
		return nil, err
	}
	src := streamSource(c, post)
	src.SplitLarge = split
	st, err := changestream.Open(src, scope, opts)
	if err != nil {
		return nil, err
	}
	return openStreamCursor(c, st, c.ns(coll), n)
}

// checkStreamReadConcern refuses an explicit read concern level other
// than majority: a stream always reads majority-committed entries.
func checkStreamReadConcern(c *Ctx) error {
	v, _ := c.field("readConcern")
	rc, _ := v.(bson.D)
	for _, e := range rc {
		if level, _ := e.Value.(string); e.Key == "level" && level != "majority" {
			return mongoerr.New(mongoerr.InvalidOptions, "$changeStream does not support read concern level '%s'; it reads majority-committed changes", level)
		}
	}
	return nil
}

// changeStreamStages compiles the stages after $changeStream (nil when
// there are none) and checks MongoDB allows them there.
func changeStreamStages(c *Ctx, a *request.Aggregate, rest bson.A) (func(bson.D) (bson.D, error), error) {
	vars, err := letVars(a.Let)
	if err != nil {
		return nil, err
	}
	pl, err := agg.Compile(rest, agg.Env{DB: c.DB, Vars: vars})
	if err != nil {
		return nil, err
	}
	if err := changestream.CheckStages(rest); err != nil {
		return nil, err
	}
	if len(rest) == 0 {
		return nil, nil
	}
	return func(ev bson.D) (bson.D, error) {
		out, err := agg.Drain(pl.Run(agg.Slice([]bson.D{ev})))
		if err != nil || len(out) == 0 {
			return nil, err
		}
		return out[0], nil
	}, nil
}

// lookupByID reads db.coll's current document with _id id (nil if none).
func lookupByID(eng *exec.Engine, db, coll string, id any) (bson.D, error) {
	it, _, err := eng.Find(db, coll, exec.FindParams{Filter: bson.D{{Key: "_id", Value: id}}, Limit: 1})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	r, ok := it.Next()
	if !ok {
		return nil, it.Err()
	}
	b, err := r.Bytes()
	if err != nil {
		return nil, err
	}
	return bsonx.Decode(b)
}
