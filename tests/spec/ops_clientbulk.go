package spec

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

type clientBulkOpts = options.ClientBulkWriteOptionsBuilder

var clientBulkWriteArgs = argTable[*clientBulkOpts]{
	"models":                   nil,
	"ordered":                  boolArg((*clientBulkOpts).SetOrdered),
	"bypassDocumentValidation": boolArg((*clientBulkOpts).SetBypassDocumentValidation),
	"comment":                  anyArg((*clientBulkOpts).SetComment),
	"let":                      anyArg((*clientBulkOpts).SetLet),
	"verboseResults":           boolArg((*clientBulkOpts).SetVerboseResults),
	"writeConcern": func(o *clientBulkOpts, v any) error {
		wc, err := parseWriteConcern(v.(bson.D))
		if err == nil {
			o.SetWriteConcern(wc)
		}
		return err
	},
}

// opClientBulkWrite runs MongoClient.bulkWrite through Client.BulkWrite
// (the server's bulkWrite command).
func opClientBulkWrite(ctx context.Context, r *testRun, op Operation) (any, bool, error) {
	ce, err := getAs[*clientEntity](r.ents, op.Object)
	if err != nil {
		return nil, false, err
	}
	o := options.ClientBulkWrite()
	if err := clientBulkWriteArgs.apply(op.Name, o, op.Arguments); err != nil {
		return nil, false, err
	}
	writes, err := clientWrites(getA(op.Arguments, "models"))
	if err != nil {
		return nil, false, err
	}
	res, err := ce.c.BulkWrite(ctx, writes, o)
	var cbe mongo.ClientBulkWriteException
	if errors.As(err, &cbe) {
		return clientBulkResult(cbe.PartialResult), true, err
	}
	return clientBulkResult(res), true, err
}

// clientWrites converts models ({insertOne: {namespace, ...}} etc.).
func clientWrites(models bson.A) ([]mongo.ClientBulkWrite, error) {
	out := make([]mongo.ClientBulkWrite, 0, len(models))
	for _, m := range models {
		d, ok := m.(bson.D)
		if !ok || len(d) != 1 {
			return nil, fmt.Errorf("bad clientBulkWrite model %v", m)
		}
		body := d[0].Value.(bson.D)
		ns := getString(body, "namespace")
		db, coll, _ := strings.Cut(ns, ".")
		model, err := clientModel(d[0].Key, without(body, "namespace"))
		if err != nil {
			return nil, err
		}
		out = append(out, mongo.ClientBulkWrite{Database: db, Collection: coll, Model: model})
	}
	return out, nil
}

func clientModel(kind string, body bson.D) (mongo.ClientWriteModel, error) {
	if kind == "insertOne" {
		doc, _ := lookup(body, "document")
		return mongo.NewClientInsertOneModel().SetDocument(doc), nil
	}
	a, err := parseUpdateArgs(kind, body)
	if err != nil {
		return nil, err
	}
	switch kind {
	case "updateOne":
		m := mongo.NewClientUpdateOneModel().SetFilter(a.filter).SetUpdate(a.update)
		return setArrayFilters(setSort(setUpsert(m, a), a), a), nil
	case "updateMany":
		m := mongo.NewClientUpdateManyModel().SetFilter(a.filter).SetUpdate(a.update)
		return setArrayFilters(setUpsert(m, a), a), nil
	case "replaceOne":
		m := mongo.NewClientReplaceOneModel().SetFilter(a.filter).SetReplacement(a.update)
		return setSort(setUpsert(m, a), a), nil
	case "deleteOne":
		return setTarget(mongo.NewClientDeleteOneModel().SetFilter(a.filter), a), nil
	case "deleteMany":
		return setTarget(mongo.NewClientDeleteManyModel().SetFilter(a.filter), a), nil
	}
	return nil, runnerErrorf("runner: unsupported clientBulkWrite model %q", kind)
}

// clientBulkResult renders a ClientBulkWriteResult (nil stays unset).
func clientBulkResult(res *mongo.ClientBulkWriteResult) any {
	if res == nil {
		return nil
	}
	d := bson.D{
		{Key: "insertedCount", Value: res.InsertedCount},
		{Key: "upsertedCount", Value: res.UpsertedCount},
		{Key: "matchedCount", Value: res.MatchedCount},
		{Key: "modifiedCount", Value: res.ModifiedCount},
		{Key: "deletedCount", Value: res.DeletedCount},
	}
	if !res.HasVerboseResults {
		return d
	}
	ins, upd, del := bson.D{}, bson.D{}, bson.D{}
	for _, i := range sortedKeys(res.InsertResults) {
		ins = append(ins, bson.E{Key: strconv.Itoa(i), Value: bson.D{{Key: "insertedId", Value: res.InsertResults[i].InsertedID}}})
	}
	for _, i := range sortedKeys(res.UpdateResults) {
		u := res.UpdateResults[i]
		ud := bson.D{{Key: "matchedCount", Value: u.MatchedCount}, {Key: "modifiedCount", Value: u.ModifiedCount}}
		if u.UpsertedID != nil {
			ud = append(ud, bson.E{Key: "upsertedId", Value: u.UpsertedID})
		}
		upd = append(upd, bson.E{Key: strconv.Itoa(i), Value: ud})
	}
	for _, i := range sortedKeys(res.DeleteResults) {
		del = append(del, bson.E{Key: strconv.Itoa(i), Value: bson.D{{Key: "deletedCount", Value: res.DeleteResults[i].DeletedCount}}})
	}
	return append(d, bson.E{Key: "insertResults", Value: ins}, bson.E{Key: "updateResults", Value: upd},
		bson.E{Key: "deleteResults", Value: del})
}

func sortedKeys[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}
