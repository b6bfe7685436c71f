package spec

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/xoptions"
)

type aggOpts = options.AggregateOptionsBuilder

var aggregateArgs = argTable[*aggOpts]{
	"pipeline":                 nil,
	"batchSize":                int32ArgOf((*aggOpts).SetBatchSize),
	"allowDiskUse":             boolArg((*aggOpts).SetAllowDiskUse),
	"bypassDocumentValidation": boolArg((*aggOpts).SetBypassDocumentValidation),
	"collation":                collationArg((*aggOpts).SetCollation),
	"comment":                  anyArg((*aggOpts).SetComment),
	"hint":                     anyArg((*aggOpts).SetHint),
	"let":                      anyArg((*aggOpts).SetLet),
	"maxAwaitTimeMS": func(o *aggOpts, v any) error {
		o.SetMaxAwaitTime(millis(v))
		return nil
	},
	"rawData": rawDataArg(xoptions.SetInternalAggregateOptions),
}

func aggregateOptions(args bson.D) (any, *options.AggregateOptionsBuilder, error) {
	o := options.Aggregate()
	if err := aggregateArgs.apply("aggregate", o, args); err != nil {
		return nil, nil, err
	}
	pipeline, _ := lookup(args, "pipeline")
	if pipeline == nil {
		return nil, nil, errors.New("aggregate: missing pipeline")
	}
	return pipeline, o, nil
}

func opAggregate(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	pipeline, o, err := aggregateOptions(op.Arguments)
	if err != nil {
		return nil, false, err
	}
	target, err := r.ents.get(op.Object)
	if err != nil {
		return nil, false, err
	}
	var cur *mongo.Cursor
	switch t := target.(type) {
	case *mongo.Collection:
		if hasFalse(op.Arguments, "bypassDocumentValidation") {
			return rawAggregate(ctx, t, op.Arguments)
		}
		cur, err = t.Aggregate(ctx, pipeline, o)
	case *mongo.Database:
		cur, err = t.Aggregate(ctx, pipeline, o)
	default:
		return nil, false, fmt.Errorf("aggregate on %T", target)
	}
	if err != nil {
		return nil, true, err
	}
	return drain(ctx, cur)
}

// rawAggregate runs an aggregate whose options the driver drops
// (bypassDocumentValidation: false) as a command cursor.
func rawAggregate(ctx context.Context, coll *mongo.Collection, args bson.D) (any, bool, error) {
	cmd := bson.D{{Key: "aggregate", Value: coll.Name()}}
	cmd, err := commandArgs("aggregate", cmd, args, []string{"batchSize"}, "pipeline", "allowDiskUse",
		"bypassDocumentValidation", "collation", "comment", "hint", "let", "maxTimeMS")
	if err != nil {
		return nil, false, err
	}
	cursor := bson.D{}
	if v, ok := lookup(args, "batchSize"); ok {
		cursor = append(cursor, bson.E{Key: "batchSize", Value: v})
	}
	cmd = append(cmd, bson.E{Key: "cursor", Value: cursor})
	cur, err := coll.Database().RunCommandCursor(ctx, cmd)
	if err != nil {
		return nil, true, err
	}
	return drain(ctx, cur)
}

// hasFalse reports whether args has key: false.
func hasFalse(args bson.D, key string) bool {
	v, ok := lookup(args, key)
	return ok && v == false
}
