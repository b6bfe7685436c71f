package spec

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/xoptions"
)

// singleDoc turns a findOneAnd* result into a document or nil (no match).
func singleDoc(res *mongo.SingleResult) (any, bool, error) {
	raw, err := res.Raw()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, true, nil
	}
	if err != nil {
		return nil, true, err
	}
	return normalize(raw), true, nil
}

func returnDoc(v any) options.ReturnDocument {
	if s, _ := v.(string); s == "After" {
		return options.After
	}
	return options.Before
}

// fam holds findOneAnd* arguments beyond updateArgs.
type fam struct {
	updateArgs
	projection any
	returnDoc  any
}

func parseFAM(opName string, args bson.D) (fam, error) {
	var f fam
	var rest bson.D
	for _, e := range args {
		switch e.Key {
		case "projection":
			f.projection = e.Value
		case "returnDocument":
			f.returnDoc = e.Value
		default:
			rest = append(rest, e)
		}
	}
	var err error
	f.updateArgs, err = parseUpdateArgs(opName, rest)
	return f, err
}

func opFindOneAndUpdate(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, err := collection(r, op)
	if err != nil {
		return nil, false, err
	}
	f, err := parseFAM(op.Name, op.Arguments)
	if err != nil {
		return nil, false, err
	}
	o := options.FindOneAndUpdate()
	setIf(f.upsert, func(b bool) { o.SetUpsert(b) })
	setIf(f.bypass, func(b bool) { o.SetBypassDocumentValidation(b) })
	setAny(f.hint, func(v any) { o.SetHint(v) })
	setAny(f.comment, func(v any) { o.SetComment(v) })
	setAny(f.let, func(v any) { o.SetLet(v) })
	setAny(f.sort, func(v any) { o.SetSort(v) })
	setAny(f.projection, func(v any) { o.SetProjection(v) })
	setAny(f.returnDoc, func(v any) { o.SetReturnDocument(returnDoc(v)) })
	if f.arrayFilters != nil {
		o.SetArrayFilters([]any(f.arrayFilters))
	}
	if f.collation != nil {
		o.SetCollation(f.collation)
	}
	if f.rawData != nil {
		_ = xoptions.SetInternalFindOneAndUpdateOptions(o, "rawData", *f.rawData)
	}
	if needsRaw(r, coll, op) {
		return rawFindAndModify(ctx, r, coll, op.Name, f)
	}
	return singleDoc(coll.FindOneAndUpdate(ctx, f.filter, f.update, o))
}

func opFindOneAndReplace(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, err := collection(r, op)
	if err != nil {
		return nil, false, err
	}
	f, err := parseFAM(op.Name, op.Arguments)
	if err != nil {
		return nil, false, err
	}
	o := options.FindOneAndReplace()
	setIf(f.upsert, func(b bool) { o.SetUpsert(b) })
	setIf(f.bypass, func(b bool) { o.SetBypassDocumentValidation(b) })
	setAny(f.hint, func(v any) { o.SetHint(v) })
	setAny(f.comment, func(v any) { o.SetComment(v) })
	setAny(f.let, func(v any) { o.SetLet(v) })
	setAny(f.sort, func(v any) { o.SetSort(v) })
	setAny(f.projection, func(v any) { o.SetProjection(v) })
	setAny(f.returnDoc, func(v any) { o.SetReturnDocument(returnDoc(v)) })
	if f.collation != nil {
		o.SetCollation(f.collation)
	}
	if f.rawData != nil {
		_ = xoptions.SetInternalFindOneAndReplaceOptions(o, "rawData", *f.rawData)
	}
	if needsRaw(r, coll, op) {
		return rawFindAndModify(ctx, r, coll, op.Name, f)
	}
	return singleDoc(coll.FindOneAndReplace(ctx, f.filter, f.update, o))
}

func opFindOneAndDelete(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, err := collection(r, op)
	if err != nil {
		return nil, false, err
	}
	f, err := parseFAM(op.Name, op.Arguments)
	if err != nil {
		return nil, false, err
	}
	o := options.FindOneAndDelete()
	setAny(f.hint, func(v any) { o.SetHint(v) })
	setAny(f.comment, func(v any) { o.SetComment(v) })
	setAny(f.let, func(v any) { o.SetLet(v) })
	setAny(f.sort, func(v any) { o.SetSort(v) })
	setAny(f.projection, func(v any) { o.SetProjection(v) })
	if f.collation != nil {
		o.SetCollation(f.collation)
	}
	if f.rawData != nil {
		_ = xoptions.SetInternalFindOneAndDeleteOptions(o, "rawData", *f.rawData)
	}
	if needsRaw(r, coll, op) {
		return rawFindAndModify(ctx, r, coll, op.Name, f)
	}
	return singleDoc(coll.FindOneAndDelete(ctx, f.filter, o))
}

// writeModel converts one bulkWrite request ({insertOne: {...}} etc.).
func writeModel(req bson.D) (mongo.WriteModel, error) {
	if len(req) != 1 {
		return nil, fmt.Errorf("bad bulkWrite request %v", req)
	}
	kind := req[0].Key
	a, err := parseUpdateArgs(kind, req[0].Value.(bson.D))
	if kind == "insertOne" {
		doc, _ := lookup(req[0].Value.(bson.D), "document")
		return mongo.NewInsertOneModel().SetDocument(doc), nil
	}
	if err != nil {
		return nil, err
	}
	switch kind {
	case "updateOne":
		m := mongo.NewUpdateOneModel().SetFilter(a.filter).SetUpdate(a.update)
		setIf(a.upsert, func(b bool) { m.SetUpsert(b) })
		setAny(a.hint, func(v any) { m.SetHint(v) })
		setAny(a.sort, func(v any) { m.SetSort(v) })
		if a.arrayFilters != nil {
			m.SetArrayFilters([]any(a.arrayFilters))
		}
		if a.collation != nil {
			m.SetCollation(a.collation)
		}
		return m, nil
	case "updateMany":
		m := mongo.NewUpdateManyModel().SetFilter(a.filter).SetUpdate(a.update)
		setIf(a.upsert, func(b bool) { m.SetUpsert(b) })
		setAny(a.hint, func(v any) { m.SetHint(v) })
		if a.arrayFilters != nil {
			m.SetArrayFilters([]any(a.arrayFilters))
		}
		if a.collation != nil {
			m.SetCollation(a.collation)
		}
		return m, nil
	case "replaceOne":
		m := mongo.NewReplaceOneModel().SetFilter(a.filter).SetReplacement(a.update)
		setIf(a.upsert, func(b bool) { m.SetUpsert(b) })
		setAny(a.hint, func(v any) { m.SetHint(v) })
		setAny(a.sort, func(v any) { m.SetSort(v) })
		if a.collation != nil {
			m.SetCollation(a.collation)
		}
		return m, nil
	case "deleteOne":
		m := mongo.NewDeleteOneModel().SetFilter(a.filter)
		setAny(a.hint, func(v any) { m.SetHint(v) })
		if a.collation != nil {
			m.SetCollation(a.collation)
		}
		return m, nil
	case "deleteMany":
		m := mongo.NewDeleteManyModel().SetFilter(a.filter)
		setAny(a.hint, func(v any) { m.SetHint(v) })
		if a.collation != nil {
			m.SetCollation(a.collation)
		}
		return m, nil
	}
	return nil, fmt.Errorf("runner: unsupported bulkWrite request %q", kind)
}

func opBulkWrite(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, err := collection(r, op)
	if err != nil {
		return nil, false, err
	}
	var models []mongo.WriteModel
	var reqs bson.A
	o := options.BulkWrite()
	c := commonWrite{ordered: true}
	for _, e := range op.Arguments {
		switch e.Key {
		case "requests":
			reqs = e.Value.(bson.A)
			for _, req := range e.Value.(bson.A) {
				m, err := writeModel(req.(bson.D))
				if err != nil {
					return nil, false, err
				}
				models = append(models, m)
			}
		case "ordered":
			c.ordered = e.Value.(bool)
			o.SetOrdered(c.ordered)
		case "comment":
			o.SetComment(e.Value)
			c.comment = e.Value
		case "let":
			o.SetLet(e.Value)
			c.let = e.Value
		case "bypassDocumentValidation":
			b := e.Value.(bool)
			o.SetBypassDocumentValidation(b)
			c.bypass = &b
		case "rawData":
			err = xoptions.SetInternalBulkWriteOptions(o, e.Key, e.Value)
		default:
			return nil, false, unsupportedArg(op.Name, e.Key)
		}
		if err != nil {
			return nil, false, err
		}
	}
	if needsRaw(r, coll, op) {
		return rawBulkWrite(ctx, r, coll, reqs, c)
	}
	res, err := coll.BulkWrite(ctx, models, o)
	return bulkResult(res), true, err
}

func bulkResult(res *mongo.BulkWriteResult) any {
	if res == nil {
		return nil
	}
	idx := make([]int64, 0, len(res.UpsertedIDs))
	for i := range res.UpsertedIDs {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	ups := bson.D{}
	for _, i := range idx {
		ups = append(ups, bson.E{Key: strconv.FormatInt(i, 10), Value: res.UpsertedIDs[i]})
	}
	return bson.D{
		{Key: "deletedCount", Value: res.DeletedCount},
		{Key: "insertedCount", Value: res.InsertedCount},
		{Key: "matchedCount", Value: res.MatchedCount},
		{Key: "modifiedCount", Value: res.ModifiedCount},
		{Key: "upsertedCount", Value: res.UpsertedCount},
		{Key: "upsertedIds", Value: ups},
	}
}
