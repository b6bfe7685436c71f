package update

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// pipelineStages are the stages MongoDB allows in an update pipeline.
var pipelineStages = map[string]bool{
	"$addFields": true, "$set": true, "$project": true, "$unset": true,
	"$replaceRoot": true, "$replaceWith": true,
}

func compilePipeline(p bson.A, opts Options) (*Update, error) {
	if len(opts.ArrayFilters) > 0 {
		return nil, mongoerr.New(mongoerr.FailedToParse, "arrayFilters may not be specified for pipeline-style updates")
	}
	for _, s := range p {
		d, ok := s.(bson.D)
		if ok && len(d) == 1 && !pipelineStages[d[0].Key] {
			return nil, mongoerr.New(mongoerr.InvalidOptions, "%s is not allowed to be used within an update", d[0].Key)
		}
	}
	if _, err := agg.Compile(p, agg.Env{Vars: opts.Vars}); err != nil {
		return nil, err
	}
	return &Update{pipeline: p, vars: opts.Vars}, nil
}

// applyPipeline runs the pipeline on doc. The result replaces doc, keeping
// its _id; the oplog form is the full new document.
// TODO(#2): compile once per Apply-context instead of per document ($$NOW).
func (u *Update) applyPipeline(doc bson.D, ctx ApplyContext) (Result, error) {
	p, err := agg.Compile(u.pipeline, agg.Env{Now: ctx.Now, Vars: u.vars})
	if err != nil {
		return Result{}, err
	}
	out, err := agg.Drain(p.Run(agg.Slice([]bson.D{bsonx.CloneDoc(doc)})))
	if err != nil {
		return Result{}, err
	}
	if len(out) != 1 {
		return Result{}, mongoerr.New(mongoerr.InternalError, "update pipeline returned %d documents", len(out))
	}
	id, hasID := bsonx.Get(doc, "_id")
	next, err := replaceKeepingID(out[0], id, hasID && !ctx.IsInsert)
	if err != nil {
		return Result{}, err
	}
	if identical(next, doc) {
		return Result{Doc: next}, nil
	}
	return Result{Doc: next, Changed: true, Oplog: bsonx.CloneDoc(next)}, nil
}
