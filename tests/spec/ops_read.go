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

type findOpts = options.FindOptionsBuilder

var findArgs = argTable[*findOpts]{
	"filter":              nil,
	"sort":                anyArg((*findOpts).SetSort),
	"projection":          anyArg((*findOpts).SetProjection),
	"skip":                int64ArgOf((*findOpts).SetSkip),
	"limit":               int64ArgOf((*findOpts).SetLimit),
	"batchSize":           int32ArgOf((*findOpts).SetBatchSize),
	"hint":                anyArg((*findOpts).SetHint),
	"comment":             anyArg((*findOpts).SetComment),
	"let":                 anyArg((*findOpts).SetLet),
	"allowDiskUse":        boolArg((*findOpts).SetAllowDiskUse),
	"collation":           collationArg((*findOpts).SetCollation),
	"min":                 anyArg((*findOpts).SetMin),
	"max":                 anyArg((*findOpts).SetMax),
	"returnKey":           boolArg((*findOpts).SetReturnKey),
	"showRecordId":        boolArg((*findOpts).SetShowRecordID),
	"noCursorTimeout":     boolArg((*findOpts).SetNoCursorTimeout),
	"allowPartialResults": boolArg((*findOpts).SetAllowPartialResults),
	"rawData":             rawDataArg(xoptions.SetInternalFindOptions),
}

func findOptions(args bson.D) (any, *options.FindOptionsBuilder, error) {
	o := options.Find()
	if err := findArgs.apply("find", o, args); err != nil {
		return nil, nil, err
	}
	limit, _ := lookup(args, "limit")
	batch, _ := lookup(args, "batchSize")
	if n := int64Arg(limit); n > 0 && int64Arg(batch) == n {
		// The CRUD spec has drivers send batchSize limit+1 so the server
		// closes the cursor with the first batch; v2.9 does not.
		o.SetBatchSize(int32(n + 1))
	}
	return filterArg(args), o, nil
}

// findCursor runs find and createFindCursor.
func findCursor(ctx context.Context, r *testRun, op Operation) (*mongo.Cursor, error) {
	coll, err := collection(r, op)
	if err != nil {
		return nil, err
	}
	filter, o, err := findOptions(op.Arguments)
	if err != nil {
		return nil, err
	}
	return coll.Find(ctx, filter, o)
}

func opFind(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	cur, err := findCursor(ctx, r, op)
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
	cur, err := findCursor(ctx, r, op)
	if err != nil {
		return nil, false, err
	}
	return cur, false, nil
}

type findOneOpts = options.FindOneOptionsBuilder

var findOneArgs = argTable[*findOneOpts]{
	"filter":     nil,
	"sort":       anyArg((*findOneOpts).SetSort),
	"skip":       int64ArgOf((*findOneOpts).SetSkip),
	"projection": anyArg((*findOneOpts).SetProjection),
	"hint":       anyArg((*findOneOpts).SetHint),
	"comment":    anyArg((*findOneOpts).SetComment),
	"collation":  collationArg((*findOneOpts).SetCollation),
}

func opFindOne(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	o := options.FindOne()
	coll, err := collectionOp(r, op, o, findOneArgs)
	if err != nil {
		return nil, false, err
	}
	return singleDoc(coll.FindOne(ctx, filterArg(op.Arguments), o))
}

type countOpts = options.CountOptionsBuilder

var countDocumentsArgs = argTable[*countOpts]{
	"filter":    nil,
	"skip":      int64ArgOf((*countOpts).SetSkip),
	"limit":     int64ArgOf((*countOpts).SetLimit),
	"hint":      anyArg((*countOpts).SetHint),
	"comment":   anyArg((*countOpts).SetComment),
	"collation": collationArg((*countOpts).SetCollation),
	"rawData":   rawDataArg(xoptions.SetInternalCountOptions),
}

func opCountDocuments(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	o := options.Count()
	coll, err := collectionOp(r, op, o, countDocumentsArgs)
	if err != nil {
		return nil, false, err
	}
	n, err := coll.CountDocuments(ctx, filterArg(op.Arguments), o)
	return n, false, err
}

var estimatedCountArgs = argTable[*options.EstimatedDocumentCountOptionsBuilder]{
	"comment": anyArg((*options.EstimatedDocumentCountOptionsBuilder).SetComment),
	"rawData": rawDataArg(xoptions.SetInternalEstimatedDocumentCountOptions),
}

func opEstimatedCount(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	coll, err := collection(r, op)
	if err != nil {
		return nil, false, err
	}
	if _, ok := lookup(op.Arguments, "maxTimeMS"); ok {
		return rawEstimatedCount(ctx, coll, op.Arguments)
	}
	o := options.EstimatedDocumentCount()
	if err := estimatedCountArgs.apply(op.Name, o, op.Arguments); err != nil {
		return nil, false, err
	}
	n, err := coll.EstimatedDocumentCount(ctx, o)
	return n, false, err
}

type distinctOpts = options.DistinctOptionsBuilder

var distinctArgs = argTable[*distinctOpts]{
	"fieldName": nil,
	"filter":    nil,
	"hint":      anyArg((*distinctOpts).SetHint),
	"comment":   anyArg((*distinctOpts).SetComment),
	"collation": collationArg((*distinctOpts).SetCollation),
	"rawData":   rawDataArg(xoptions.SetInternalDistinctOptions),
}

func opDistinct(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	o := options.Distinct()
	coll, err := collectionOp(r, op, o, distinctArgs)
	if err != nil {
		return nil, false, err
	}
	field := getString(op.Arguments, "fieldName")
	res := coll.Distinct(ctx, field, filterArg(op.Arguments), o)
	if err := res.Err(); err != nil {
		return nil, false, err
	}
	var vals bson.A
	if err := res.Decode(&vals); err != nil {
		return nil, false, fmt.Errorf("decode distinct: %w", err)
	}
	return normalize(vals), false, nil
}
