package spec

// The unified format's change stream operations (change-streams/unified,
// retryable-reads' changeStreams-*): createChangeStream on a client,
// database or collection entity opens the driver's ChangeStream (Watch)
// without iterating it; iterateUntilDocumentOrError, iterateOnce and
// close accept a change stream entity as well as a cursor (ops_db.go
// dispatches to csIterate and csClose). A change stream is closed when
// its test ends.

import (
	"context"
	"errors"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

func init() {
	operations["createChangeStream"] = opCreateChangeStream
}

type csOpts = options.ChangeStreamOptionsBuilder

var changeStreamArgs = argTable[*csOpts]{
	"pipeline":  nil,
	"batchSize": int32ArgOf((*csOpts).SetBatchSize),
	"comment":   anyArg((*csOpts).SetComment),
	"collation": func(o *csOpts, v any) error {
		o.SetCollation(*parseCollation(v.(bson.D)))
		return nil
	},
	"fullDocument": func(o *csOpts, v any) error {
		s, _ := v.(string)
		o.SetFullDocument(options.FullDocument(s))
		return nil
	},
	"fullDocumentBeforeChange": func(o *csOpts, v any) error {
		s, _ := v.(string)
		o.SetFullDocumentBeforeChange(options.FullDocument(s))
		return nil
	},
	"maxAwaitTimeMS": func(o *csOpts, v any) error {
		o.SetMaxAwaitTime(millis(v))
		return nil
	},
	"resumeAfter":        anyArg((*csOpts).SetResumeAfter),
	"startAfter":         anyArg((*csOpts).SetStartAfter),
	"showExpandedEvents": boolArg((*csOpts).SetShowExpandedEvents),
	"startAtOperationTime": func(o *csOpts, v any) error {
		ts, ok := v.(bson.Timestamp)
		if !ok {
			return runnerErrorf("runner: startAtOperationTime is %T, want a timestamp", v)
		}
		o.SetStartAtOperationTime(&ts)
		return nil
	},
}

// opCreateChangeStream opens a change stream on the object (client,
// database or collection); its result is the stream (saveResultAsEntity).
func opCreateChangeStream(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	o := options.ChangeStream()
	if err := changeStreamArgs.apply(op.Name, o, op.Arguments); err != nil {
		return nil, false, err
	}
	pipeline, _ := lookup(op.Arguments, "pipeline")
	if pipeline == nil {
		pipeline = bson.A{}
	}
	target, err := r.ents.get(op.Object)
	if err != nil {
		return nil, false, err
	}
	var cs *mongo.ChangeStream
	switch t := target.(type) {
	case *clientEntity:
		cs, err = t.c.Watch(ctx, pipeline, o)
	case *mongo.Database:
		cs, err = t.Watch(ctx, pipeline, o)
	case *mongo.Collection:
		cs, err = t.Watch(ctx, pipeline, o)
	default:
		return nil, false, runnerErrorf("runner: createChangeStream on %T", target)
	}
	if err != nil {
		return nil, false, err
	}
	r.cleanups = append(r.cleanups, func() { _ = cs.Close(context.Background()) })
	return cs, false, nil
}

// changeStream returns entity id when it is a change stream.
func changeStream(r *testRun, id string) (*mongo.ChangeStream, bool) {
	v, err := r.ents.get(id)
	if err != nil {
		return nil, false
	}
	cs, ok := v.(*mongo.ChangeStream)
	return cs, ok
}

// csIterate reads the stream's next change event: until one arrives or
// the stream fails (untilDocument), or with one getMore at most.
func csIterate(ctx context.Context, cs *mongo.ChangeStream, untilDocument bool) (any, bool, error) {
	var ok bool
	if untilDocument {
		ok = cs.Next(ctx)
	} else {
		ok = cs.TryNext(ctx)
	}
	if ok {
		return normalize(cs.Current), true, nil
	}
	if err := cs.Err(); err != nil {
		return nil, true, err
	}
	if untilDocument {
		return nil, true, errors.New("change stream closed without a document")
	}
	return nil, true, nil
}
