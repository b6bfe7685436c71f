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

func opInsertOne(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, err := collection(r, op)
	if err != nil {
		return nil, false, err
	}
	var doc any
	o := options.InsertOne()
	c := commonWrite{ordered: true}
	for _, e := range op.Arguments {
		switch e.Key {
		case "document":
			doc = e.Value
		case "comment":
			o.SetComment(e.Value)
			c.comment = e.Value
		case "bypassDocumentValidation":
			b := e.Value.(bool)
			o.SetBypassDocumentValidation(b)
			c.bypass = &b
		case "rawData":
			err = xoptions.SetInternalInsertOneOptions(o, e.Key, e.Value)
		default:
			return nil, false, unsupportedArg(op.Name, e.Key)
		}
		if err != nil {
			return nil, false, err
		}
	}
	if needsRaw(r, coll, op) {
		return rawInsert(ctx, r, coll, bson.A{doc}, c, false)
	}
	res, err := coll.InsertOne(ctx, doc, o)
	if res == nil {
		return nil, true, err
	}
	return bson.D{{Key: "insertedId", Value: res.InsertedID}}, true, err
}

func opInsertMany(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, err := collection(r, op)
	if err != nil {
		return nil, false, err
	}
	var docs bson.A
	o := options.InsertMany()
	c := commonWrite{ordered: true}
	for _, e := range op.Arguments {
		switch e.Key {
		case "documents":
			docs = e.Value.(bson.A)
		case "ordered":
			c.ordered = e.Value.(bool)
			o.SetOrdered(c.ordered)
		case "comment":
			o.SetComment(e.Value)
			c.comment = e.Value
		case "bypassDocumentValidation":
			b := e.Value.(bool)
			o.SetBypassDocumentValidation(b)
			c.bypass = &b
		case "rawData":
			err = xoptions.SetInternalInsertManyOptions(o, e.Key, e.Value)
		default:
			return nil, false, unsupportedArg(op.Name, e.Key)
		}
		if err != nil {
			return nil, false, err
		}
	}
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

func opUpdateOne(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, err := collection(r, op)
	if err != nil {
		return nil, false, err
	}
	a, err := parseUpdateArgs(op.Name, op.Arguments)
	if err != nil {
		return nil, false, err
	}
	o := options.UpdateOne()
	setIf(a.upsert, func(b bool) { o.SetUpsert(b) })
	setIf(a.bypass, func(b bool) { o.SetBypassDocumentValidation(b) })
	setAny(a.hint, func(v any) { o.SetHint(v) })
	setAny(a.comment, func(v any) { o.SetComment(v) })
	setAny(a.let, func(v any) { o.SetLet(v) })
	setAny(a.sort, func(v any) { o.SetSort(v) })
	if a.arrayFilters != nil {
		o.SetArrayFilters([]any(a.arrayFilters))
	}
	if a.collation != nil {
		o.SetCollation(a.collation)
	}
	if a.rawData != nil {
		_ = xoptions.SetInternalUpdateOneOptions(o, "rawData", *a.rawData)
	}
	if needsRaw(r, coll, op) {
		return rawUpdate(ctx, r, coll, a, false)
	}
	res, err := coll.UpdateOne(ctx, a.filter, a.update, o)
	return updateResult(res), true, err
}

func opUpdateMany(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, err := collection(r, op)
	if err != nil {
		return nil, false, err
	}
	a, err := parseUpdateArgs(op.Name, op.Arguments)
	if err != nil {
		return nil, false, err
	}
	if a.sort != nil {
		return nil, false, unsupportedArg(op.Name, "sort")
	}
	o := options.UpdateMany()
	setIf(a.upsert, func(b bool) { o.SetUpsert(b) })
	setIf(a.bypass, func(b bool) { o.SetBypassDocumentValidation(b) })
	setAny(a.hint, func(v any) { o.SetHint(v) })
	setAny(a.comment, func(v any) { o.SetComment(v) })
	setAny(a.let, func(v any) { o.SetLet(v) })
	if a.arrayFilters != nil {
		o.SetArrayFilters([]any(a.arrayFilters))
	}
	if a.collation != nil {
		o.SetCollation(a.collation)
	}
	if a.rawData != nil {
		_ = xoptions.SetInternalUpdateManyOptions(o, "rawData", *a.rawData)
	}
	if needsRaw(r, coll, op) {
		return rawUpdate(ctx, r, coll, a, true)
	}
	res, err := coll.UpdateMany(ctx, a.filter, a.update, o)
	return updateResult(res), true, err
}

func opReplaceOne(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, err := collection(r, op)
	if err != nil {
		return nil, false, err
	}
	a, err := parseUpdateArgs(op.Name, op.Arguments)
	if err != nil {
		return nil, false, err
	}
	o := options.Replace()
	setIf(a.upsert, func(b bool) { o.SetUpsert(b) })
	setIf(a.bypass, func(b bool) { o.SetBypassDocumentValidation(b) })
	setAny(a.hint, func(v any) { o.SetHint(v) })
	setAny(a.comment, func(v any) { o.SetComment(v) })
	setAny(a.let, func(v any) { o.SetLet(v) })
	setAny(a.sort, func(v any) { o.SetSort(v) })
	if a.collation != nil {
		o.SetCollation(a.collation)
	}
	if a.rawData != nil {
		_ = xoptions.SetInternalReplaceOptions(o, "rawData", *a.rawData)
	}
	if needsRaw(r, coll, op) {
		return rawUpdate(ctx, r, coll, a, false)
	}
	res, err := coll.ReplaceOne(ctx, a.filter, a.update, o)
	return updateResult(res), true, err
}

func opDeleteOne(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, err := collection(r, op)
	if err != nil {
		return nil, false, err
	}
	a, err := parseUpdateArgs(op.Name, op.Arguments)
	if err != nil {
		return nil, false, err
	}
	o := options.DeleteOne()
	setAny(a.hint, func(v any) { o.SetHint(v) })
	setAny(a.comment, func(v any) { o.SetComment(v) })
	setAny(a.let, func(v any) { o.SetLet(v) })
	if a.collation != nil {
		o.SetCollation(a.collation)
	}
	if a.rawData != nil {
		_ = xoptions.SetInternalDeleteOneOptions(o, "rawData", *a.rawData)
	}
	if needsRaw(r, coll, op) {
		return rawDelete(ctx, r, coll, a, false)
	}
	res, err := coll.DeleteOne(ctx, a.filter, o)
	return deleteResult(res), true, err
}

func opDeleteMany(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, err := collection(r, op)
	if err != nil {
		return nil, false, err
	}
	a, err := parseUpdateArgs(op.Name, op.Arguments)
	if err != nil {
		return nil, false, err
	}
	o := options.DeleteMany()
	setAny(a.hint, func(v any) { o.SetHint(v) })
	setAny(a.comment, func(v any) { o.SetComment(v) })
	setAny(a.let, func(v any) { o.SetLet(v) })
	if a.collation != nil {
		o.SetCollation(a.collation)
	}
	if a.rawData != nil {
		_ = xoptions.SetInternalDeleteManyOptions(o, "rawData", *a.rawData)
	}
	if needsRaw(r, coll, op) {
		return rawDelete(ctx, r, coll, a, true)
	}
	res, err := coll.DeleteMany(ctx, a.filter, o)
	return deleteResult(res), true, err
}
