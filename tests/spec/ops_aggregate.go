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

func aggregateOptions(args bson.D) (any, *options.AggregateOptionsBuilder, error) {
	var pipeline any
	o := options.Aggregate()
	for _, e := range args {
		var err error
		switch e.Key {
		case "pipeline":
			pipeline = e.Value
		case "batchSize":
			o.SetBatchSize(int32Arg(e.Value))
		case "allowDiskUse":
			o.SetAllowDiskUse(e.Value.(bool))
		case "bypassDocumentValidation":
			o.SetBypassDocumentValidation(e.Value.(bool))
		case "collation":
			o.SetCollation(parseCollation(e.Value.(bson.D)))
		case "comment":
			o.SetComment(e.Value)
		case "hint":
			o.SetHint(e.Value)
		case "let":
			o.SetLet(e.Value)
		case "maxAwaitTimeMS":
			o.SetMaxAwaitTime(millis(e.Value))
		case "rawData":
			err = xoptions.SetInternalAggregateOptions(o, e.Key, e.Value)
		default:
			return nil, nil, unsupportedArg("aggregate", e.Key)
		}
		if err != nil {
			return nil, nil, err
		}
	}
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
	cursor := bson.D{}
	for _, e := range args {
		switch e.Key {
		case "pipeline", "allowDiskUse", "bypassDocumentValidation", "collation", "comment", "hint", "let", "maxTimeMS":
			cmd = append(cmd, e)
		case "batchSize":
			cursor = append(cursor, e)
		default:
			return nil, false, unsupportedArg("aggregate", e.Key)
		}
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
