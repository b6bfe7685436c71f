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

// famTarget resolves the collection and parses findOneAnd* arguments.
func famTarget(r *testRun, op Operation) (*mongo.Collection, fam, error) {
	coll, err := collection(r, op)
	if err != nil {
		return nil, fam{}, err
	}
	f, err := parseFAM(op.Name, op.Arguments)
	return coll, f, err
}

func opFindOneAndUpdate(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, f, err := famTarget(r, op)
	if err != nil {
		return nil, false, err
	}
	o := setReturnDoc(setFAM(setModify(options.FindOneAndUpdate(), f.updateArgs), f), f)
	setArrayFilters(o, f.updateArgs)
	setRawData(o, f.updateArgs, xoptions.SetInternalFindOneAndUpdateOptions)
	if needsRaw(r, coll, op) {
		return rawFindAndModify(ctx, r, coll, op.Name, f)
	}
	return singleDoc(coll.FindOneAndUpdate(ctx, f.filter, f.update, o))
}

func opFindOneAndReplace(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, f, err := famTarget(r, op)
	if err != nil {
		return nil, false, err
	}
	o := setReturnDoc(setFAM(setModify(options.FindOneAndReplace(), f.updateArgs), f), f)
	setRawData(o, f.updateArgs, xoptions.SetInternalFindOneAndReplaceOptions)
	if needsRaw(r, coll, op) {
		return rawFindAndModify(ctx, r, coll, op.Name, f)
	}
	return singleDoc(coll.FindOneAndReplace(ctx, f.filter, f.update, o))
}

func opFindOneAndDelete(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, f, err := famTarget(r, op)
	if err != nil {
		return nil, false, err
	}
	o := setFAM(setCommand(options.FindOneAndDelete(), f.updateArgs), f)
	setRawData(o, f.updateArgs, xoptions.SetInternalFindOneAndDeleteOptions)
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
		return setArrayFilters(setSort(setUpsert(m, a), a), a), nil
	case "updateMany":
		m := mongo.NewUpdateManyModel().SetFilter(a.filter).SetUpdate(a.update)
		return setArrayFilters(setUpsert(m, a), a), nil
	case "replaceOne":
		m := mongo.NewReplaceOneModel().SetFilter(a.filter).SetReplacement(a.update)
		return setSort(setUpsert(m, a), a), nil
	case "deleteOne":
		return setTarget(mongo.NewDeleteOneModel().SetFilter(a.filter), a), nil
	case "deleteMany":
		return setTarget(mongo.NewDeleteManyModel().SetFilter(a.filter), a), nil
	}
	return nil, fmt.Errorf("runner: unsupported bulkWrite request %q", kind)
}

var bulkWriteArgs = argTable[*options.BulkWriteOptionsBuilder]{
	"requests":                 nil,
	"ordered":                  boolArg((*options.BulkWriteOptionsBuilder).SetOrdered),
	"comment":                  anyArg((*options.BulkWriteOptionsBuilder).SetComment),
	"let":                      anyArg((*options.BulkWriteOptionsBuilder).SetLet),
	"bypassDocumentValidation": boolArg((*options.BulkWriteOptionsBuilder).SetBypassDocumentValidation),
	"rawData":                  rawDataArg(xoptions.SetInternalBulkWriteOptions),
}

// writeModels converts bulkWrite's requests.
func writeModels(reqs bson.A) ([]mongo.WriteModel, error) {
	var models []mongo.WriteModel
	for _, req := range reqs {
		m, err := writeModel(req.(bson.D))
		if err != nil {
			return nil, err
		}
		models = append(models, m)
	}
	return models, nil
}

func opBulkWrite(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	o := options.BulkWrite()
	coll, err := collectionOp(r, op, o, bulkWriteArgs)
	if err != nil {
		return nil, false, err
	}
	reqs := getA(op.Arguments, "requests")
	models, err := writeModels(reqs)
	if err != nil {
		return nil, false, err
	}
	if needsRaw(r, coll, op) {
		return rawBulkWrite(ctx, r, coll, reqs, parseCommonWrite(op.Arguments))
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
