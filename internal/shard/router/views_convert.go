package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// The reads a view answers, as an aggregate of the collection under it
// (MongoDB's query_request_conversion and the count/distinct view
// rewrites): the view's pipeline, then find's filter, sort, skip, limit
// and projection as $match, $sort, $skip, $limit and $project; count's
// query, skip and limit then $count; distinct's query then $unwind and
// $group with $addToSet. Generic fields (lsid, readConcern, maxTimeMS,
// comment, collation, hint, let, $readPreference, ...) are kept.

// findStageFields become stages, in this order.
var findStageFields = []struct{ field, stage string }{
	{"filter", "$match"}, {"sort", "$sort"}, {"skip", "$skip"}, {"limit", "$limit"}, {"projection", "$project"},
}

// findUnsupported are find options an aggregate has no equivalent for
// (InvalidPipelineOperator, as MongoDB's conversion answers).
var findUnsupported = []string{"returnKey", "showRecordId", "min", "max", "tailable", "awaitData",
	"noCursorTimeout", "allowPartialResults", "oplogReplay", "readOnce", "resumeAfter", "requestResumeToken"}

// viewAggregate is cmd (find, count, distinct or aggregate on a view) as an
// aggregate of rv's collection.
func viewAggregate(cmd bson.D, rv resolvedView) (bson.D, error) {
	var stages bson.A
	var consumed map[string]bool
	var err error
	switch cmd[0].Key {
	case "find":
		stages, consumed, err = findStages(cmd)
	case "count":
		stages, consumed = countStages(cmd)
	case "distinct":
		stages, consumed, err = distinctStages(cmd)
	case "aggregate":
		v, _ := bsonx.Get(cmd, "pipeline")
		stages, _ = v.(bson.A)
		consumed = map[string]bool{"pipeline": true}
	default:
		return nil, mongoerr.New(mongoerr.CommandNotSupportedOnView, "%s is not supported on a view", cmd[0].Key)
	}
	if err != nil {
		return nil, err
	}
	pipeline := append(append(bson.A{}, rv.pipeline...), stages...)
	out := bson.D{{Key: "aggregate", Value: rv.coll}, {Key: "pipeline", Value: pipeline}}
	hasCursor := false
	for _, e := range cmd[1:] {
		if consumed[e.Key] || e.Key == "shardVersion" || e.Key == "databaseVersion" {
			continue
		}
		hasCursor = hasCursor || e.Key == "cursor" || e.Key == "explain"
		out = append(out, e)
	}
	if !hasCursor {
		out = append(out, bson.E{Key: "cursor", Value: cursorOption(cmd)})
	}
	return out, nil
}

// cursorOption is find's batchSize as an aggregate's cursor option.
func cursorOption(cmd bson.D) bson.D {
	if v, ok := bsonx.Get(cmd, "batchSize"); ok && cmd[0].Key == "find" {
		return bson.D{{Key: "batchSize", Value: v}}
	}
	return bson.D{}
}

func findStages(cmd bson.D) (bson.A, map[string]bool, error) {
	for _, f := range findUnsupported {
		if v, ok := bsonx.Get(cmd, f); ok && truthyOption(v) {
			return nil, nil, mongoerr.New(mongoerr.InvalidPipelineOperator, "Option %s not supported in aggregation.", f)
		}
	}
	consumed := map[string]bool{"batchSize": true, "singleBatch": true}
	for _, f := range findUnsupported {
		consumed[f] = true
	}
	var stages bson.A
	for _, fs := range findStageFields {
		v, ok := bsonx.Get(cmd, fs.field)
		consumed[fs.field] = true
		if !ok || v == nil {
			continue
		}
		if n, isNum := bsonx.AsInt64(v); isNum {
			if n < 0 && fs.field == "limit" {
				n = -n
			}
			if n != 0 {
				stages = append(stages, bson.D{{Key: fs.stage, Value: n}})
			}
			continue
		}
		if d, isDoc := v.(bson.D); isDoc && (len(d) > 0 || fs.field == "filter") {
			stages = append(stages, bson.D{{Key: fs.stage, Value: d}})
		}
	}
	return stages, consumed, nil
}

// truthyOption: an option that asks for something (true, a number not 0,
// a non-empty document).
func truthyOption(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case bson.D:
		return len(x) > 0
	case nil:
		return false
	}
	if n, ok := bsonx.AsInt64(v); ok {
		return n != 0
	}
	return true
}

func countStages(cmd bson.D) (bson.A, map[string]bool) {
	q, _ := bsonx.Get(cmd, "query")
	qd, _ := q.(bson.D)
	if qd == nil {
		qd = bson.D{}
	}
	stages := bson.A{bson.D{{Key: "$match", Value: qd}}}
	for _, f := range []string{"skip", "limit"} {
		v, _ := bsonx.Get(cmd, f)
		if n, _ := bsonx.AsInt64(v); n != 0 {
			if n < 0 {
				n = -n
			}
			stages = append(stages, bson.D{{Key: "$" + f, Value: n}})
		}
	}
	stages = append(stages, bson.D{{Key: "$count", Value: "count"}})
	return stages, map[string]bool{"query": true, "skip": true, "limit": true, "fields": true}
}

func distinctStages(cmd bson.D) (bson.A, map[string]bool, error) {
	k, _ := bsonx.Get(cmd, "key")
	key, ok := k.(string)
	if !ok {
		return nil, nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'distinct.key' is missing or not a string")
	}
	q, _ := bsonx.Get(cmd, "query")
	qd, _ := q.(bson.D)
	if qd == nil {
		qd = bson.D{}
	}
	path := "$" + key
	stages := bson.A{
		bson.D{{Key: "$match", Value: qd}},
		bson.D{{Key: "$unwind", Value: bson.D{{Key: "path", Value: path}, {Key: "preserveNullAndEmptyArrays", Value: true}}}},
		bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: "distinct", Value: bson.D{{Key: "$addToSet", Value: path}}}}}},
	}
	return stages, map[string]bool{"key": true, "query": true}, nil
}
