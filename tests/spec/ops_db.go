package spec

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/xoptions"
)

func database(r *testRun, op Operation) (*mongo.Database, error) {
	return getAs[*mongo.Database](r.ents, op.Object)
}

// createOptions are the create command options createCollection passes on.
var createOptions = []string{"viewOn", "pipeline", "capped", "size", "max", "expireAfterSeconds", "timeseries",
	"clusteredIndex", "changeStreamPreAndPostImages", "validator", "validationLevel",
	"validationAction", "collation", "storageEngine", "indexOptionDefaults", "encryptedFields"}

// opCreateCollection sends {create: name, <options>} as drivers do; its
// result is the collection (saveResultAsEntity).
func opCreateCollection(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	db, err := database(r, op)
	if err != nil {
		return nil, false, err
	}
	cmd := bson.D{{Key: "create", Value: getString(op.Arguments, "collection")}}
	cmd, err = commandArgs(op.Name, cmd, op.Arguments, []string{"collection"}, createOptions...)
	if err != nil {
		return nil, false, err
	}
	if err := db.RunCommand(ctx, cmd).Err(); err != nil {
		return nil, false, err
	}
	return db.Collection(getString(op.Arguments, "collection")), false, nil
}

// opModifyCollection sends {collMod: name, <options>}.
func opModifyCollection(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	db, err := database(r, op)
	if err != nil {
		return nil, false, err
	}
	cmd := bson.D{{Key: "collMod", Value: getString(op.Arguments, "collection")}}
	for _, e := range op.Arguments {
		if e.Key != "collection" {
			cmd = append(cmd, e)
		}
	}
	return nil, false, db.RunCommand(ctx, cmd).Err()
}

func opDropCollection(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	db, err := database(r, op)
	if err != nil {
		return nil, false, err
	}
	for _, e := range op.Arguments {
		if e.Key != "collection" {
			return nil, false, unsupportedArg(op.Name, e.Key)
		}
	}
	return nil, false, db.Collection(getString(op.Arguments, "collection")).Drop(ctx)
}

type listCollOpts = options.ListCollectionsOptionsBuilder

var listCollectionsArgs = argTable[*listCollOpts]{
	"filter":                nil,
	"batchSize":             int32ArgOf((*listCollOpts).SetBatchSize),
	"nameOnly":              boolArg((*listCollOpts).SetNameOnly),
	"authorizedCollections": boolArg((*listCollOpts).SetAuthorizedCollections),
	"rawData":               rawDataArg(xoptions.SetInternalListCollectionsOptions),
}

// listCollectionsTarget resolves the database and listCollections options.
func listCollectionsTarget(r *testRun, op Operation) (*mongo.Database, *listCollOpts, error) {
	db, err := database(r, op)
	if err != nil {
		return nil, nil, err
	}
	o := options.ListCollections()
	return db, o, listCollectionsArgs.apply(op.Name, o, op.Arguments)
}

func opListCollections(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	db, o, err := listCollectionsTarget(r, op)
	if err != nil {
		return nil, false, err
	}
	cur, err := db.ListCollections(ctx, filterArg(op.Arguments), o)
	if err != nil {
		return nil, true, err
	}
	return drain(ctx, cur)
}

func opListCollectionNames(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	db, o, err := listCollectionsTarget(r, op)
	if err != nil {
		return nil, false, err
	}
	names, err := db.ListCollectionNames(ctx, filterArg(op.Arguments), o)
	return normalize(names), false, err
}

func opListDatabases(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	ce, err := getAs[*clientEntity](r.ents, op.Object)
	if err != nil {
		return nil, false, err
	}
	var filter any = bson.D{}
	for _, e := range op.Arguments {
		if e.Key != "filter" {
			return nil, false, unsupportedArg(op.Name, e.Key)
		}
		filter = e.Value
	}
	if op.Name == "listDatabaseNames" {
		names, err := ce.c.ListDatabaseNames(ctx, filter)
		return normalize(names), false, err
	}
	res, err := ce.c.ListDatabases(ctx, filter)
	out := bson.A{}
	for _, d := range res.Databases {
		out = append(out, bson.D{{Key: "name", Value: d.Name},
			{Key: "sizeOnDisk", Value: d.SizeOnDisk}, {Key: "empty", Value: d.Empty}})
	}
	return out, true, err
}

func opRunCommand(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	db, err := database(r, op)
	if err != nil {
		return nil, false, err
	}
	var cmd any
	o := options.RunCmd()
	for _, e := range op.Arguments {
		switch e.Key {
		case "command":
			cmd = e.Value
		case "commandName":
		case "readPreference":
			rp, err := parseReadPref(e.Value.(bson.D))
			if err != nil {
				return nil, false, err
			}
			o.SetReadPreference(rp)
		default:
			return nil, false, unsupportedArg(op.Name, e.Key)
		}
	}
	raw, err := db.RunCommand(ctx, cmd, o).Raw()
	if err != nil {
		return nil, true, err
	}
	return normalize(raw), true, nil
}

// commandCursor runs runCursorCommand / createCommandCursor.
func commandCursor(ctx context.Context, r *testRun, op Operation) (*mongo.Cursor, error) {
	db, err := database(r, op)
	if err != nil {
		return nil, err
	}
	var cmd any
	var batch int32
	var comment any
	var getMoreMax time.Duration
	for _, e := range op.Arguments {
		switch e.Key {
		case "command":
			cmd = e.Value
		case "commandName":
		case "cursorType":
			// The command itself carries tailable/awaitData; the driver's
			// command cursor keeps a cursor the server keeps open.
		case "batchSize":
			batch = int32Arg(e.Value)
		case "comment":
			comment = e.Value
		case "maxTimeMS":
			// Applies to getMore only; the driver sends maxAwaitTime as
			// getMore's maxTimeMS.
			getMoreMax = millis(e.Value)
		default:
			// TODO(#2): timeoutMode for command cursors.
			return nil, unsupportedArg(op.Name, e.Key)
		}
	}
	cur, err := db.RunCommandCursor(ctx, cmd)
	if err != nil {
		return nil, err
	}
	if batch > 0 {
		cur.SetBatchSize(batch)
	}
	if comment != nil {
		cur.SetComment(comment)
	}
	if getMoreMax > 0 {
		cur.SetMaxAwaitTime(getMoreMax)
	}
	return cur, nil
}

func opRunCursorCommand(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	cur, err := commandCursor(ctx, r, op)
	if err != nil {
		return nil, true, err
	}
	return drain(ctx, cur)
}

func opCreateCommandCursor(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	cur, err := commandCursor(ctx, r, op)
	if err != nil {
		return nil, false, err
	}
	return cur, false, nil
}

func opIterateUntilDocumentOrError(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	if cs, ok := changeStream(r, op.Object); ok { // ops_changestream.go
		return csIterate(ctx, cs, true)
	}
	cur, err := getAs[*mongo.Cursor](r.ents, op.Object)
	if err != nil {
		return nil, false, err
	}
	if cur.Next(ctx) {
		return normalize(cur.Current), true, nil
	}
	if err := cur.Err(); err != nil {
		return nil, true, err
	}
	return nil, true, errors.New("cursor exhausted without a document")
}

func opIterateOnce(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	if cs, ok := changeStream(r, op.Object); ok {
		return csIterate(ctx, cs, false)
	}
	cur, err := getAs[*mongo.Cursor](r.ents, op.Object)
	if err != nil {
		return nil, false, err
	}
	if cur.TryNext(ctx) {
		return normalize(cur.Current), true, nil
	}
	return nil, true, cur.Err()
}

func opClose(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	v, err := r.ents.get(op.Object)
	if err != nil {
		return nil, false, err
	}
	switch x := v.(type) {
	case *mongo.Cursor:
		return nil, false, x.Close(ctx)
	case *mongo.ChangeStream:
		return nil, false, x.Close(ctx)
	case *clientEntity:
		return nil, false, x.c.Disconnect(ctx)
	}
	return nil, false, runnerErrorf("runner: close on %T", v)
}

func opRename(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, err := collection(r, op)
	if err != nil {
		return nil, false, err
	}
	to := getString(op.Arguments, "to")
	cmd := bson.D{{Key: "renameCollection", Value: coll.Database().Name() + "." + coll.Name()},
		{Key: "to", Value: coll.Database().Name() + "." + to}}
	cmd, err = commandArgs(op.Name, cmd, op.Arguments, []string{"to"}, "dropTarget")
	if err != nil {
		return nil, false, err
	}
	admin := coll.Database().Client().Database("admin")
	return nil, false, admin.RunCommand(ctx, cmd).Err()
}

// fmtNS renders db.coll for messages.
func fmtNS(db, coll string) string { return fmt.Sprintf("%s.%s", db, coll) }
