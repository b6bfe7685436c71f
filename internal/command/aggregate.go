package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func aggregate(c *Ctx, a *request.Aggregate) (bson.D, error) {
	coll, err := c.aggTarget(a.Target)
	if err != nil {
		return nil, err
	}
	explain := lenient(a.Explain)
	if isChangeStream(a.Pipeline) && (a.Cursor != nil || explain) {
		return changeStreamAggregate(c, a, coll) // changestream.go
	}
	if a.Cursor == nil && !explain {
		return nil, mongoerr.New(mongoerr.FailedToParse, "The 'cursor' option is required, except for aggregate with the explain argument")
	}
	p := exec.AggregateParams{Pipeline: a.Pipeline, AllowDiskUse: a.AllowDiskUse, Hint: a.Hint.Value}
	if p.Collation, err = opCollation(a.Collation); err != nil {
		return nil, err
	}
	if p.BypassValidation, err = cmdspec.Bool("aggregate.bypassDocumentValidation", a.BypassDocumentValidation); err != nil {
		return nil, err
	}
	if err := outReadConcern(c, a.Pipeline); err != nil {
		return nil, err
	}
	if c.D.repl != nil && writesOutput(a.Pipeline) {
		if err := c.D.repl.CheckWrite(c.DB); err != nil {
			if !explain && c.secondaryOut() { // out_secondary.go
				return c.outThroughPrimary(a, p, coll)
			}
			return nil, err
		}
	}
	if p.Vars, err = letVars(a.Let); err != nil {
		return nil, err
	}
	p.Vars = c.scriptVars(p.Vars) // script.go
	if def, err := c.view(coll); err != nil || def != nil {
		return aggregateOnView(c, a, def, p, explain, err)
	}
	p.LocalSessions = c.D.sessions.list
	if coll != "$cmd.aggregate" {
		p.CollStats = c.collStatsInfo(coll)
	}
	if explain {
		return bson.D{{Key: "stages", Value: a.Pipeline}}, nil
	}
	n, err := cursorBatchSize(a.Cursor)
	if err != nil {
		return nil, err
	}
	target := coll
	if coll == "$cmd.aggregate" {
		target = ""
	}
	rv, err := c.beginRead()
	if err != nil {
		return nil, err
	}
	defer rv.release()
	p.Snapshot, p.Owned = rv.snap, c.Owned
	it, err := c.D.eng.Aggregate(c.DB, target, p)
	if err != nil {
		return nil, err
	}
	reply, err := c.firstBatch(exec.NewCursor(c.ns(coll), it), n, false)
	if err != nil {
		return nil, err
	}
	if reply, err = c.outWriteConcern(reply); err != nil { // out_secondary.go
		return nil, err
	}
	return c.finishRead(rv, reply)
}

// aggTarget returns the collection name, or "$cmd.aggregate" for {aggregate: 1}.
func (c *Ctx) aggTarget(v any) (string, error) {
	switch t := v.(type) {
	case string:
		return c.collName(cmdspec.CollName(t))
	case int32, int64, float64:
		if n, _ := bsonx.AsFloat64(t); n == 1 {
			return "$cmd.aggregate", nil
		}
	}
	return "", mongoerr.New(mongoerr.FailedToParse, "Invalid command format: the 'aggregate' field must specify a collection name or 1")
}

// cursorBatchSize reads {cursor: {batchSize}} of the commands that open
// a cursor; -1 for an empty first batch.
func cursorBatchSize(opts *bson.D) (int, error) {
	if opts == nil {
		return exec.DefaultFirstBatch, nil
	}
	for _, e := range *opts {
		if e.Key == "batchSize" {
			n, ok := bsonx.AsFloat64(e.Value)
			if !ok || n < 0 {
				return 0, mongoerr.New(mongoerr.BadValue, "cursor.batchSize must be a non-negative number")
			}
			if n == 0 {
				return -1, nil
			}
			return int(n), nil
		}
	}
	return exec.DefaultFirstBatch, nil
}

// pipelineWrites reports an aggregate whose pipeline ends in $out or
// $merge, for the dispatcher to apply its write concern; with a secondary
// read preference it may run on a secondary, which must not wait: the
// handler applies the write concern itself then (out_secondary.go).
func pipelineWrites(cmd bson.D) bool {
	p, _ := bsonx.Get(cmd, "pipeline")
	a, _ := p.(bson.A)
	return writesOutput(a) && !secondaryReadPref(cmd)
}

// outReadConcern refuses $out and $merge under a linearizable read
// concern, as mongod's writer stages do (InvalidOptions).
func outReadConcern(c *Ctx, pipeline bson.A) error {
	if !writesOutput(pipeline) {
		return nil
	}
	rc, _ := c.field("readConcern")
	level, _ := bsonx.Get(asDoc(rc), "level")
	if level != levelLinearizable {
		return nil
	}
	last, _ := pipeline[len(pipeline)-1].(bson.D)
	return mongoerr.New(mongoerr.InvalidOptions, "%s cannot be used with a 'linearizable' read concern level", last[0].Key)
}

// writesOutput reports a pipeline ending in $out or $merge.
func writesOutput(pipeline bson.A) bool {
	if len(pipeline) == 0 {
		return false
	}
	last, _ := pipeline[len(pipeline)-1].(bson.D)
	return len(last) == 1 && (last[0].Key == "$out" || last[0].Key == "$merge")
}
