package command

import (
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// mapReduce runs as an aggregation, as mongod has since 5.0: the query,
// sort and limit select the documents; a $function calls map with this
// bound to each document and collects what it emits; a $group with an
// $accumulator collects each key's values and reduces them (re-reducing
// every reduceBatch values, so a key's state stays bounded, which
// mapReduce's contract allows) and finalizes; the results are sorted by
// key and returned inline or written with $out / $merge.

// reduceBatch is how many values a key gathers before they are reduced.
const reduceBatch = 1000

// mrOutput is where mapReduce's results go.
type mrOutput struct {
	inline bool
	db     string // "" : the command's database
	coll   string
	action string // "replace", "merge" or "reduce"
}

// mapReducePipeline builds the aggregation of a mapReduce.
func mapReducePipeline(p *request.MapReduce, out mrOutput, db string) (bson.A, error) {
	mapSrc, err := jsSource("map", p.Map)
	if err != nil {
		return nil, err
	}
	reduceSrc, err := jsSource("reduce", p.Reduce)
	if err != nil {
		return nil, err
	}
	finalizeSrc := "function(k, v) { return v; }"
	if p.Finalize != nil && out.action == "reduce" {
		// The new values would have to be merged before finalize.
		return nil, mongoerr.New(mongoerr.NotImplemented, "mapReduce out {reduce: ...} with finalize is not supported")
	}
	if p.Finalize != nil {
		if finalizeSrc, err = jsSource("finalize", p.Finalize); err != nil {
			return nil, err
		}
	}
	scope := p.Scope
	if scope == nil {
		scope = bson.D{}
	}
	var pipe bson.A
	if len(p.Query) > 0 {
		pipe = append(pipe, bson.D{{Key: "$match", Value: p.Query}})
	}
	if len(p.Sort) > 0 {
		pipe = append(pipe, bson.D{{Key: "$sort", Value: p.Sort}})
	}
	if p.Limit > 0 {
		pipe = append(pipe, bson.D{{Key: "$limit", Value: p.Limit}})
	}
	pipe = append(pipe, mapStages(mapSrc, scope)...)
	pipe = append(pipe, reduceStages(reduceSrc, finalizeSrc, scope)...)
	return append(pipe, outStage(out, db, reduceSrc, scope)...), nil
}

// jsSource reads a function given as a string or Code.
func jsSource(field string, v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bson.JavaScript:
		return string(x), nil
	case bson.CodeWithScope:
		return string(x.Code), nil
	}
	return "", mongoerr.New(mongoerr.BadValue, "'%s' must be of string or code type", field)
}

// mapStages emit each document's {k, v} pairs, one per output document.
// The scope's fields are visible to map as variables (with).
func mapStages(mapSrc string, scope bson.D) bson.A {
	wrapper := "function(doc, scope) { var __out = []; var emit = function(k, v) {" +
		" if (arguments.length != 2) { throw new Error('emit takes 2 args'); } __out.push({k: k, v: v}); };" +
		" var __map; with (scope) { __map = (" + mapSrc + "\n); } __map.call(doc); return __out; }"
	return bson.A{
		bson.D{{Key: "$project", Value: bson.D{{Key: "_id", Value: 0}, {Key: "e", Value: bson.D{{Key: "$function", Value: bson.D{
			{Key: "body", Value: wrapper}, {Key: "args", Value: bson.A{"$$ROOT", bson.D{{Key: "$literal", Value: scope}}}}, {Key: "lang", Value: "js"}}}}}}}},
		bson.D{{Key: "$unwind", Value: "$e"}},
	}
}

// reduceStages group the pairs by key and reduce and finalize each key's
// values; a key with one value is not reduced (as in mongod).
func reduceStages(reduceSrc, finalizeSrc string, scope bson.D) bson.A {
	fns := "var __reduce, __finalize; with (st.scope) { __reduce = (" + reduceSrc + "\n); __finalize = (" + finalizeSrc + "\n); }"
	shrink := "if (st.vs.length >= " + strconv.Itoa(reduceBatch) + ") { " + fns + " st.vs = [__reduce(st.k, st.vs)]; }"
	acc := bson.D{
		{Key: "init", Value: "function(scope) { return {scope: scope, k: null, vs: []}; }"},
		{Key: "initArgs", Value: bson.A{bson.D{{Key: "$literal", Value: scope}}}},
		{Key: "accumulate", Value: "function(st, k, v) { st.k = k; st.vs.push(v); " + shrink + " return st; }"},
		{Key: "accumulateArgs", Value: bson.A{"$e.k", "$e.v"}},
		{Key: "merge", Value: "function(st, o) { st.k = o.k; st.vs = st.vs.concat(o.vs); " + shrink + " return st; }"},
		{Key: "finalize", Value: "function(st) { " + fns + " var v = st.vs.length == 1 ? st.vs[0] : __reduce(st.k, st.vs);" +
			" return __finalize(st.k, v); }"},
		{Key: "lang", Value: "js"},
	}
	return bson.A{
		bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$e.k"}, {Key: "value", Value: bson.D{{Key: "$accumulator", Value: acc}}}}}},
		bson.D{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
	}
}

// outStage writes the results to out's collection (nothing for inline):
// replace with $out, merge with $merge, and reduce with a $merge whose
// whenMatched pipeline reduces the existing and the new value.
func outStage(out mrOutput, db, reduceSrc string, scope bson.D) bson.A {
	if out.inline {
		return nil
	}
	if out.db == "" {
		out.db = db
	}
	if out.action == "replace" {
		return bson.A{bson.D{{Key: "$out", Value: bson.D{{Key: "db", Value: out.db}, {Key: "coll", Value: out.coll}}}}}
	}
	var whenMatched any = "replace"
	if out.action == "reduce" {
		both := "function(k, old, nw, scope) { var __reduce; with (scope) { __reduce = (" + reduceSrc + "\n); } return __reduce(k, [old, nw]); }"
		whenMatched = bson.A{bson.D{{Key: "$replaceWith", Value: bson.D{{Key: "_id", Value: "$_id"}, {Key: "value", Value: bson.D{{Key: "$function", Value: bson.D{
			{Key: "body", Value: both}, {Key: "args", Value: bson.A{"$_id", "$value", "$$new.value", bson.D{{Key: "$literal", Value: scope}}}}, {Key: "lang", Value: "js"}}}}}}}}}
	}
	return bson.A{bson.D{{Key: "$merge", Value: bson.D{{Key: "into", Value: bson.D{{Key: "db", Value: out.db}, {Key: "coll", Value: out.coll}}},
		{Key: "whenMatched", Value: whenMatched}, {Key: "whenNotMatched", Value: "insert"}}}}}
}
