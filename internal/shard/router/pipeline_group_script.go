package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"
)

// splitScriptAccumulator splits a $accumulator (JavaScript): each shard
// runs it without finalize, so its partial field is the group's state;
// the router collects the shards' states of a group in a JavaScript array
// (one per shard that saw the group) and, in finalize, folds them with
// the user's merge and applies the user's finalize. Only string or Code
// functions split (anything else is an error the shards report).
func splitScriptAccumulator(p string, arg any) (parts, merges bson.D, result any, ok bool) {
	spec, isDoc := arg.(bson.D)
	if !isDoc {
		return nil, nil, nil, false
	}
	var shard bson.D
	var merge, finalize string
	for _, e := range spec {
		switch e.Key {
		case "merge":
			if merge, ok = scriptSource(e.Value); !ok {
				return nil, nil, nil, false
			}
		case "finalize":
			if finalize, ok = scriptSource(e.Value); !ok {
				return nil, nil, nil, false
			}
			continue // the router finalizes
		}
		shard = append(shard, e)
	}
	if merge == "" {
		return nil, nil, nil, false
	}
	if finalize == "" {
		finalize = "function(s) { return s; }"
	}
	fold := "function(states) { var merge = (" + merge + "\n); var fin = (" + finalize + "\n);" +
		" var s = states[0]; for (var i = 1; i < states.length; i++) { s = merge(s, states[i]); } return fin(s); }"
	router := bson.D{
		{Key: "init", Value: "function() { return []; }"},
		{Key: "accumulate", Value: "function(states, s) { states.push(s); return states; }"},
		{Key: "accumulateArgs", Value: bson.A{"$" + p}},
		{Key: "merge", Value: "function(a, b) { return a.concat(b); }"},
		{Key: "finalize", Value: fold},
		{Key: "lang", Value: "js"},
	}
	parts = bson.D{{Key: p, Value: bson.D{{Key: "$accumulator", Value: shard}}}}
	merges = bson.D{{Key: p, Value: bson.D{{Key: "$accumulator", Value: router}}}}
	return parts, merges, "$" + p, true
}

// scriptSource is a function given as a string or Code.
func scriptSource(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, x != ""
	case bson.JavaScript:
		return string(x), x != ""
	}
	return "", false
}
