package command

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func init() {
	register(&Command{Name: "aggregate", Read: true, AfterWrite: pipelineWrites, Help: "runs an aggregation pipeline", Handler: aggregateCmd, Fields: []string{
		"pipeline", "cursor", "explain", "allowDiskUse", "hint", "let", "collation",
		"bypassDocumentValidation", "fromMongos", "needsMerge", "isMapReduceCommand"}})
}

func aggregateCmd(c *Ctx) (bson.D, error) {
	coll, err := c.aggTarget()
	if err != nil {
		return nil, err
	}
	pipeline, ok, err := c.array("pipeline")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, c.missing("pipeline")
	}
	cursorOpts, hasCursor, err := c.doc("cursor")
	if err != nil {
		return nil, err
	}
	explain, _ := c.boolean("explain")
	if !hasCursor && !explain {
		return nil, mongoerr.New(mongoerr.FailedToParse, "The 'cursor' option is required, except for aggregate with the explain argument")
	}
	p := exec.AggregateParams{}
	if p.AllowDiskUse, err = c.boolean("allowDiskUse"); err != nil {
		return nil, err
	}
	if v, ok := c.field("hint"); ok {
		if p.Hint, err = parseHint(v); err != nil {
			return nil, err
		}
	}
	if v, ok := c.field("collation"); ok {
		if err := anyCollation(v); err != nil {
			return nil, err
		}
	}
	p.Pipeline = pipeline
	if c.D.repl != nil && writesOutput(pipeline) {
		if err := c.D.repl.CheckWrite(c.DB); err != nil {
			return nil, err
		}
	}
	if p.Vars, err = c.letVars(); err != nil {
		return nil, err
	}
	p.LocalSessions = c.D.sessions.list
	if explain {
		return bson.D{{Key: "stages", Value: pipeline}}, nil
	}
	n, err := batchSizeFrom(cursorOpts)
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
	p.Snapshot = rv.snap
	it, err := c.D.eng.Aggregate(c.DB, target, p)
	if err != nil {
		return nil, err
	}
	reply, err := c.firstBatch(exec.NewCursor(c.ns(coll), it), n, false)
	if err != nil {
		return nil, err
	}
	return c.finishRead(rv, reply)
}

// aggTarget returns the collection name, or "$cmd.aggregate" for {aggregate: 1}.
func (c *Ctx) aggTarget() (string, error) {
	switch v := c.Cmd[0].Value.(type) {
	case string:
		return c.collArg()
	case int32, int64, float64:
		if n, _ := bsonx.AsFloat64(v); n == 1 {
			return "$cmd.aggregate", nil
		}
	}
	return "", mongoerr.New(mongoerr.FailedToParse, "Invalid command format: the 'aggregate' field must specify a collection name or 1")
}

func batchSizeFrom(opts bson.D) (int, error) {
	for _, e := range opts {
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

// pipelineWrites reports an aggregate whose pipeline ends in $out or $merge.
func pipelineWrites(cmd bson.D) bool {
	p, _ := bsonx.Get(cmd, "pipeline")
	a, _ := p.(bson.A)
	return writesOutput(a)
}

// writesOutput reports a pipeline ending in $out or $merge.
func writesOutput(pipeline bson.A) bool {
	if len(pipeline) == 0 {
		return false
	}
	last, _ := pipeline[len(pipeline)-1].(bson.D)
	return len(last) == 1 && (last[0].Key == "$out" || last[0].Key == "$merge")
}
