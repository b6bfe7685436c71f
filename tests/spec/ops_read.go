package spec

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/xoptions"
)

func int32Arg(v any) int32 { n, _ := asInt64(v); return int32(n) }
func int64Arg(v any) int64 { n, _ := asInt64(v); return n }

func findOptions(args bson.D) (any, *options.FindOptionsBuilder, error) {
	var filter any = bson.D{}
	o := options.Find()
	var limit, batch int64
	for _, e := range args {
		var err error
		switch e.Key {
		case "filter":
			filter = e.Value
		case "sort":
			o.SetSort(e.Value)
		case "projection":
			o.SetProjection(e.Value)
		case "skip":
			o.SetSkip(int64Arg(e.Value))
		case "limit":
			limit = int64Arg(e.Value)
			o.SetLimit(limit)
		case "batchSize":
			batch = int64Arg(e.Value)
			o.SetBatchSize(int32(batch))
		case "hint":
			o.SetHint(e.Value)
		case "comment":
			o.SetComment(e.Value)
		case "let":
			o.SetLet(e.Value)
		case "allowDiskUse":
			o.SetAllowDiskUse(e.Value.(bool))
		case "collation":
			o.SetCollation(parseCollation(e.Value.(bson.D)))
		case "min":
			o.SetMin(e.Value)
		case "max":
			o.SetMax(e.Value)
		case "returnKey":
			o.SetReturnKey(e.Value.(bool))
		case "showRecordId":
			o.SetShowRecordID(e.Value.(bool))
		case "noCursorTimeout":
			o.SetNoCursorTimeout(e.Value.(bool))
		case "allowPartialResults":
			o.SetAllowPartialResults(e.Value.(bool))
		case "rawData":
			err = xoptions.SetInternalFindOptions(o, e.Key, e.Value)
		default:
			return nil, nil, unsupportedArg("find", e.Key)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	if limit > 0 && batch == limit {
		// The CRUD spec has drivers send batchSize limit+1 so the server
		// closes the cursor with the first batch; v2.9 does not.
		o.SetBatchSize(int32(batch + 1))
	}
	return filter, o, nil
}

func opFind(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, err := getAs[*mongo.Collection](r.ents, op.Object)
	if err != nil {
		return nil, false, err
	}
	filter, o, err := findOptions(op.Arguments)
	if err != nil {
		return nil, false, err
	}
	cur, err := coll.Find(ctx, filter, o)
	if err != nil {
		return nil, true, err
	}
	return drain(ctx, cur)
}

// drain reads a cursor to the end; the result is an iterable of root docs.
func drain(ctx context.Context, cur *mongo.Cursor) (any, bool, error) {
	defer cur.Close(context.Background())
	var docs []bson.D
	err := cur.All(ctx, &docs)
	return normalize(docs), true, err
}

func opCreateFindCursor(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, err := getAs[*mongo.Collection](r.ents, op.Object)
	if err != nil {
		return nil, false, err
	}
	filter, o, err := findOptions(op.Arguments)
	if err != nil {
		return nil, false, err
	}
	cur, err := coll.Find(ctx, filter, o)
	if err != nil {
		return nil, false, err
	}
	return cur, false, nil
}

func opFindOne(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, err := getAs[*mongo.Collection](r.ents, op.Object)
	if err != nil {
		return nil, false, err
	}
	var filter any = bson.D{}
	o := options.FindOne()
	for _, e := range op.Arguments {
		switch e.Key {
		case "filter":
			filter = e.Value
		case "sort":
			o.SetSort(e.Value)
		case "skip":
			o.SetSkip(int64Arg(e.Value))
		case "projection":
			o.SetProjection(e.Value)
		case "hint":
			o.SetHint(e.Value)
		case "comment":
			o.SetComment(e.Value)
		case "collation":
			o.SetCollation(parseCollation(e.Value.(bson.D)))
		default:
			return nil, false, unsupportedArg(op.Name, e.Key)
		}
	}
	return singleDoc(coll.FindOne(ctx, filter, o))
}

func opCountDocuments(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, err := getAs[*mongo.Collection](r.ents, op.Object)
	if err != nil {
		return nil, false, err
	}
	var filter any = bson.D{}
	o := options.Count()
	for _, e := range op.Arguments {
		switch e.Key {
		case "filter":
			filter = e.Value
		case "skip":
			o.SetSkip(int64Arg(e.Value))
		case "limit":
			o.SetLimit(int64Arg(e.Value))
		case "hint":
			o.SetHint(e.Value)
		case "comment":
			o.SetComment(e.Value)
		case "collation":
			o.SetCollation(parseCollation(e.Value.(bson.D)))
		case "rawData":
			err = xoptions.SetInternalCountOptions(o, e.Key, e.Value)
		default:
			return nil, false, unsupportedArg(op.Name, e.Key)
		}
		if err != nil {
			return nil, false, err
		}
	}
	n, err := coll.CountDocuments(ctx, filter, o)
	return n, false, err
}

func opEstimatedCount(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, err := getAs[*mongo.Collection](r.ents, op.Object)
	if err != nil {
		return nil, false, err
	}
	if _, ok := lookup(op.Arguments, "maxTimeMS"); ok {
		return rawEstimatedCount(ctx, coll, op.Arguments)
	}
	o := options.EstimatedDocumentCount()
	for _, e := range op.Arguments {
		switch e.Key {
		case "comment":
			o.SetComment(e.Value)
		case "rawData":
			err = xoptions.SetInternalEstimatedDocumentCountOptions(o, e.Key, e.Value)
		default:
			return nil, false, unsupportedArg(op.Name, e.Key)
		}
		if err != nil {
			return nil, false, err
		}
	}
	n, err := coll.EstimatedDocumentCount(ctx, o)
	return n, false, err
}

func opDistinct(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, err := getAs[*mongo.Collection](r.ents, op.Object)
	if err != nil {
		return nil, false, err
	}
	var filter any = bson.D{}
	field := ""
	o := options.Distinct()
	for _, e := range op.Arguments {
		switch e.Key {
		case "fieldName":
			field, _ = e.Value.(string)
		case "filter":
			filter = e.Value
		case "hint":
			o.SetHint(e.Value)
		case "comment":
			o.SetComment(e.Value)
		case "collation":
			o.SetCollation(parseCollation(e.Value.(bson.D)))
		case "rawData":
			err = xoptions.SetInternalDistinctOptions(o, e.Key, e.Value)
		default:
			return nil, false, unsupportedArg(op.Name, e.Key)
		}
		if err != nil {
			return nil, false, err
		}
	}
	res := coll.Distinct(ctx, field, filter, o)
	if err := res.Err(); err != nil {
		return nil, false, err
	}
	var vals bson.A
	if err := res.Decode(&vals); err != nil {
		return nil, false, fmt.Errorf("decode distinct: %w", err)
	}
	return normalize(vals), false, nil
}
