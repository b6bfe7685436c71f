package spec

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/xoptions"
)

func indexModel(opName string, args bson.D) (mongo.IndexModel, *options.CreateIndexesOptionsBuilder, error) {
	var m mongo.IndexModel
	io := options.Index()
	co := options.CreateIndexes()
	for _, e := range args {
		var err error
		switch e.Key {
		case "keys":
			m.Keys = e.Value
		case "name":
			io.SetName(e.Value.(string))
		case "unique":
			io.SetUnique(e.Value.(bool))
		case "sparse":
			io.SetSparse(e.Value.(bool))
		case "hidden":
			io.SetHidden(e.Value.(bool))
		case "expireAfterSeconds":
			io.SetExpireAfterSeconds(int32Arg(e.Value))
		case "partialFilterExpression":
			io.SetPartialFilterExpression(e.Value)
		case "collation":
			io.SetCollation(parseCollation(e.Value.(bson.D)))
		case "commitQuorum":
			if q, ok := e.Value.(string); ok {
				co.SetCommitQuorumString(q)
			} else {
				co.SetCommitQuorumInt(int32Arg(e.Value))
			}
		case "rawData":
			err = xoptions.SetInternalCreateIndexesOptions(co, e.Key, e.Value)
		default:
			return m, nil, unsupportedArg(opName, e.Key)
		}
		if err != nil {
			return m, nil, err
		}
	}
	m.Options = io
	return m, co, nil
}

func opCreateIndex(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, err := collection(r, op)
	if err != nil {
		return nil, false, err
	}
	m, co, err := indexModel(op.Name, op.Arguments)
	if err != nil {
		return nil, false, err
	}
	name, err := coll.Indexes().CreateOne(ctx, m, co)
	return name, false, err
}

func opListIndexes(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, err := collection(r, op)
	if err != nil {
		return nil, false, err
	}
	o := options.ListIndexes()
	for _, e := range op.Arguments {
		switch e.Key {
		case "batchSize":
			o.SetBatchSize(int32Arg(e.Value))
		case "rawData":
			err = xoptions.SetInternalListIndexesOptions(o, e.Key, e.Value)
		default:
			return nil, false, unsupportedArg(op.Name, e.Key)
		}
		if err != nil {
			return nil, false, err
		}
	}
	cur, err := coll.Indexes().List(ctx, o)
	if err != nil {
		return nil, true, err
	}
	return drain(ctx, cur)
}

func dropIndexesOptions(op Operation) (*options.DropIndexesOptionsBuilder, error) {
	o := options.DropIndexes()
	for _, e := range op.Arguments {
		switch e.Key {
		case "name":
		case "rawData":
			if err := xoptions.SetInternalDropIndexesOptions(o, e.Key, e.Value); err != nil {
				return nil, err
			}
		default:
			return nil, unsupportedArg(op.Name, e.Key)
		}
	}
	return o, nil
}

func opDropIndex(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, err := collection(r, op)
	if err != nil {
		return nil, false, err
	}
	o, err := dropIndexesOptions(op)
	if err != nil {
		return nil, false, err
	}
	return nil, false, coll.Indexes().DropOne(ctx, getString(op.Arguments, "name"), o)
}

func opDropIndexes(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, err := collection(r, op)
	if err != nil {
		return nil, false, err
	}
	o, err := dropIndexesOptions(op)
	if err != nil {
		return nil, false, err
	}
	return nil, false, coll.Indexes().DropAll(ctx, o)
}

// collectionExists asks the internal client.
func (r *testRun) collectionExists(ctx context.Context, db, coll string) (bool, error) {
	names, err := r.internal.Database(db).ListCollectionNames(ctx, bson.D{{Key: "name", Value: coll}})
	return len(names) > 0, err
}

func opAssertCollection(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	db, coll := getString(op.Arguments, "databaseName"), getString(op.Arguments, "collectionName")
	ok, err := r.collectionExists(ctx, db, coll)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", op.Name, err)
	}
	if want := op.Name == "assertCollectionExists"; ok != want {
		return nil, false, fmt.Errorf("%s: collection %s exists=%v", op.Name, fmtNS(db, coll), ok)
	}
	return nil, false, nil
}

func opAssertIndex(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	db, coll := getString(op.Arguments, "databaseName"), getString(op.Arguments, "collectionName")
	name := getString(op.Arguments, "indexName")
	specs, err := r.internal.Database(db).Collection(coll).Indexes().ListSpecifications(ctx)
	if err != nil && op.Name == "assertIndexExists" {
		return nil, false, fmt.Errorf("%s: %w", op.Name, err)
	}
	found := false
	for _, s := range specs {
		found = found || s.Name == name
	}
	if want := op.Name == "assertIndexExists"; found != want {
		return nil, false, fmt.Errorf("%s: index %q on %s exists=%v", op.Name, name, fmtNS(db, coll), found)
	}
	return nil, false, nil
}
