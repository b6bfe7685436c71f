package spec

import (
	"context"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/xoptions"
)

func collection(r *testRun, op Operation) (*mongo.Collection, error) {
	return getAs[*mongo.Collection](r.ents, op.Object)
}

// collectionOp resolves op's collection and applies op's arguments to o.
func collectionOp[T any](r *testRun, op Operation, o T, t argTable[T]) (*mongo.Collection, error) {
	coll, err := collection(r, op)
	if err != nil {
		return nil, err
	}
	return coll, t.apply(op.Name, o, op.Arguments)
}

var insertOneArgs = argTable[*options.InsertOneOptionsBuilder]{
	"document":                 nil,
	"comment":                  anyArg((*options.InsertOneOptionsBuilder).SetComment),
	"bypassDocumentValidation": boolArg((*options.InsertOneOptionsBuilder).SetBypassDocumentValidation),
	"rawData":                  rawDataArg(xoptions.SetInternalInsertOneOptions),
}

var insertManyArgs = argTable[*options.InsertManyOptionsBuilder]{
	"documents":                nil,
	"ordered":                  boolArg((*options.InsertManyOptionsBuilder).SetOrdered),
	"comment":                  anyArg((*options.InsertManyOptionsBuilder).SetComment),
	"bypassDocumentValidation": boolArg((*options.InsertManyOptionsBuilder).SetBypassDocumentValidation),
	"rawData":                  rawDataArg(xoptions.SetInternalInsertManyOptions),
}

func opInsertOne(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	o := options.InsertOne()
	coll, err := collectionOp(r, op, o, insertOneArgs)
	if err != nil {
		return nil, false, err
	}
	doc, _ := lookup(op.Arguments, "document")
	if needsRaw(r, coll, op) {
		return rawInsert(ctx, r, coll, bson.A{doc}, parseCommonWrite(op.Arguments), false)
	}
	res, err := coll.InsertOne(ctx, doc, o)
	if res == nil {
		return nil, true, err
	}
	return bson.D{{Key: "insertedId", Value: res.InsertedID}}, true, err
}

func opInsertMany(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	o := options.InsertMany()
	coll, err := collectionOp(r, op, o, insertManyArgs)
	if err != nil {
		return nil, false, err
	}
	docs, c := getA(op.Arguments, "documents"), parseCommonWrite(op.Arguments)
	if needsRaw(r, coll, op) {
		return rawInsert(ctx, r, coll, docs, c, true)
	}
	res, err := coll.InsertMany(ctx, []any(docs), o)
	if err != nil {
		return insertManyPartial(len(docs), c.ordered, err), true, err
	}
	if res == nil {
		return nil, true, nil
	}
	ids := bson.D{}
	for i, id := range res.InsertedIDs {
		ids = append(ids, bson.E{Key: strconv.Itoa(i), Value: id})
	}
	return bson.D{{Key: "insertedIds", Value: ids}}, true, err
}

// updateArgs are the arguments shared by update, replace and delete.
type updateArgs struct {
	filter, update           any
	upsert, bypass           *bool
	hint, comment, let, sort any
	arrayFilters             bson.A
	collation                *options.Collation
	collationDoc             bson.D // collation as given, for raw commands
	rawData                  *bool
}

func parseUpdateArgs(opName string, args bson.D) (updateArgs, error) {
	var a updateArgs
	for _, e := range args {
		switch e.Key {
		case "filter":
			a.filter = e.Value
		case "update", "replacement":
			a.update = e.Value
		case "upsert":
			b := e.Value.(bool)
			a.upsert = &b
		case "bypassDocumentValidation":
			b := e.Value.(bool)
			a.bypass = &b
		case "hint":
			a.hint = e.Value
		case "comment":
			a.comment = e.Value
		case "let":
			a.let = e.Value
		case "sort":
			a.sort = e.Value
		case "arrayFilters":
			a.arrayFilters = e.Value.(bson.A)
		case "collation":
			a.collationDoc = e.Value.(bson.D)
			a.collation = parseCollation(a.collationDoc)
		case "rawData":
			b := e.Value.(bool)
			a.rawData = &b
		default:
			return a, unsupportedArg(opName, e.Key)
		}
	}
	return a, nil
}

// updateTarget resolves the collection and parses update/delete arguments.
func updateTarget(r *testRun, op Operation) (*mongo.Collection, updateArgs, error) {
	coll, err := collection(r, op)
	if err != nil {
		return nil, updateArgs{}, err
	}
	a, err := parseUpdateArgs(op.Name, op.Arguments)
	return coll, a, err
}

func opUpdateOne(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, a, err := updateTarget(r, op)
	if err != nil {
		return nil, false, err
	}
	o := setArrayFilters(setSort(setModify(options.UpdateOne(), a), a), a)
	setRawData(o, a, xoptions.SetInternalUpdateOneOptions)
	if needsRaw(r, coll, op) {
		return rawUpdate(ctx, r, coll, a, false)
	}
	res, err := coll.UpdateOne(ctx, a.filter, a.update, o)
	return updateResult(res), true, err
}

func opUpdateMany(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, a, err := updateTarget(r, op)
	if err != nil {
		return nil, false, err
	}
	if a.sort != nil {
		return nil, false, unsupportedArg(op.Name, "sort")
	}
	o := setArrayFilters(setModify(options.UpdateMany(), a), a)
	setRawData(o, a, xoptions.SetInternalUpdateManyOptions)
	if needsRaw(r, coll, op) {
		return rawUpdate(ctx, r, coll, a, true)
	}
	res, err := coll.UpdateMany(ctx, a.filter, a.update, o)
	return updateResult(res), true, err
}

func opReplaceOne(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, a, err := updateTarget(r, op)
	if err != nil {
		return nil, false, err
	}
	o := setSort(setModify(options.Replace(), a), a)
	setRawData(o, a, xoptions.SetInternalReplaceOptions)
	if needsRaw(r, coll, op) {
		return rawUpdate(ctx, r, coll, a, false)
	}
	res, err := coll.ReplaceOne(ctx, a.filter, a.update, o)
	return updateResult(res), true, err
}

func opDeleteOne(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, a, err := updateTarget(r, op)
	if err != nil {
		return nil, false, err
	}
	o := setRawData(setCommand(options.DeleteOne(), a), a, xoptions.SetInternalDeleteOneOptions)
	if needsRaw(r, coll, op) {
		return rawDelete(ctx, r, coll, a, false)
	}
	res, err := coll.DeleteOne(ctx, a.filter, o)
	return deleteResult(res), true, err
}

func opDeleteMany(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, a, err := updateTarget(r, op)
	if err != nil {
		return nil, false, err
	}
	o := setRawData(setCommand(options.DeleteMany(), a), a, xoptions.SetInternalDeleteManyOptions)
	if needsRaw(r, coll, op) {
		return rawDelete(ctx, r, coll, a, true)
	}
	res, err := coll.DeleteMany(ctx, a.filter, o)
	return deleteResult(res), true, err
}
