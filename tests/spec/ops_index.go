package spec

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/xoptions"
)

type indexOpts = options.IndexOptionsBuilder

// indexArgs are createIndex's index options; commitQuorum and rawData go
// to the command (createIndexesOptions).
var indexArgs = argTable[*indexOpts]{
	"keys":         nil,
	"commitQuorum": nil,
	"rawData":      nil,
	"name": func(o *indexOpts, v any) error {
		o.SetName(v.(string))
		return nil
	},
	"unique":                  boolArg((*indexOpts).SetUnique),
	"sparse":                  boolArg((*indexOpts).SetSparse),
	"hidden":                  boolArg((*indexOpts).SetHidden),
	"expireAfterSeconds":      int32ArgOf((*indexOpts).SetExpireAfterSeconds),
	"partialFilterExpression": anyArg((*indexOpts).SetPartialFilterExpression),
	"collation":               collationArg((*indexOpts).SetCollation),
}

func indexModel(opName string, args bson.D) (mongo.IndexModel, *options.CreateIndexesOptionsBuilder, error) {
	io := options.Index()
	if err := indexArgs.apply(opName, io, args); err != nil {
		return mongo.IndexModel{}, nil, err
	}
	keys, _ := lookup(args, "keys")
	co, err := createIndexesOptions(args)
	return mongo.IndexModel{Keys: keys, Options: io}, co, err
}

func createIndexesOptions(args bson.D) (*options.CreateIndexesOptionsBuilder, error) {
	co := options.CreateIndexes()
	for _, e := range args {
		switch e.Key {
		case "commitQuorum":
			if q, ok := e.Value.(string); ok {
				co.SetCommitQuorumString(q)
			} else {
				co.SetCommitQuorumInt(int32Arg(e.Value))
			}
		case "rawData":
			if err := xoptions.SetInternalCreateIndexesOptions(co, e.Key, e.Value); err != nil {
				return nil, err
			}
		}
	}
	return co, nil
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

var listIndexesArgs = argTable[*options.ListIndexesOptionsBuilder]{
	"batchSize": int32ArgOf((*options.ListIndexesOptionsBuilder).SetBatchSize),
	"rawData":   rawDataArg(xoptions.SetInternalListIndexesOptions),
}

func opListIndexes(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	o := options.ListIndexes()
	coll, err := collectionOp(r, op, o, listIndexesArgs)
	if err != nil {
		return nil, false, err
	}
	cur, err := coll.Indexes().List(ctx, o)
	if err != nil {
		return nil, true, err
	}
	return drain(ctx, cur)
}

var dropIndexesArgs = argTable[*options.DropIndexesOptionsBuilder]{
	"name":    nil,
	"rawData": rawDataArg(xoptions.SetInternalDropIndexesOptions),
}

// dropIndexesTarget resolves the collection and dropIndex(es) options.
func dropIndexesTarget(r *testRun, op Operation) (*mongo.Collection, *options.DropIndexesOptionsBuilder, error) {
	o := options.DropIndexes()
	coll, err := collectionOp(r, op, o, dropIndexesArgs)
	return coll, o, err
}

func opDropIndex(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, o, err := dropIndexesTarget(r, op)
	if err != nil {
		return nil, false, err
	}
	return nil, false, coll.Indexes().DropOne(ctx, getString(op.Arguments, "name"), o)
}

func opDropIndexes(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, o, err := dropIndexesTarget(r, op)
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
