package agg

import (
	"testing"

	_ "github.com/relaydb/relaydb/internal/js" // registers the JavaScript engine
)

// TestScriptOperators: $function and $accumulator run JavaScript; numbers
// come back as doubles (as from mongod), NumberLong stays int64.
func TestScriptOperators(t *testing.T) {
	in := `[{"_id": 1, "g": "a", "x": 1}, {"_id": 2, "g": "b", "x": 5}, {"_id": 3, "g": "a", "x": 2}]`
	acc := `{"$accumulator": {"init": "function() { return {n: 0, s: 0} }", "accumulate": "function(st, x) { return {n: st.n + 1, s: st.s + x} }",
		"accumulateArgs": ["$x"], "merge": "function(a, b) { return {n: a.n + b.n, s: a.s + b.s} }", "finalize": "function(st) { return st.s / st.n }", "lang": "js"}}`
	runPipeCases(t, []pipeCase{
		{name: "function", pipeline: `[{"$project": {"y": {"$function": {"body": "function(x, g) { return g + (x * 2) }", "args": ["$x", "$g"], "lang": "js"}}}}]`,
			input: in, want: `[{"_id": 1, "y": "a2"}, {"_id": 2, "y": "b10"}, {"_id": 3, "y": "a4"}]`},
		{name: "function in $match $expr", pipeline: `[{"$match": {"$expr": {"$function": {"body": "function(x) { return x > 1 }", "args": ["$x"], "lang": "js"}}}}, {"$project": {"_id": 1}}]`,
			input: in, want: `[{"_id": 2}, {"_id": 3}]`},
		{name: "function undefined is null", pipeline: `[{"$project": {"y": {"$function": {"body": "function() {}", "args": [], "lang": "js"}}}}]`,
			input: `[{"_id": 1}]`, want: `[{"_id": 1, "y": null}]`},
		{name: "function throws", pipeline: `[{"$project": {"y": {"$function": {"body": "function() { throw 'x' }", "args": [], "lang": "js"}}}}]`,
			input: `[{"_id": 1}]`, code: 139},
		{name: "function no lang", pipeline: `[{"$project": {"y": {"$function": {"body": "function() {}", "args": []}}}}]`, code: 31418},
		{name: "function bad lang", pipeline: `[{"$project": {"y": {"$function": {"body": "function() {}", "args": [], "lang": "py"}}}}]`, code: 31419},
		{name: "function no args", pipeline: `[{"$project": {"y": {"$function": {"body": "function() {}", "lang": "js"}}}}]`, code: 31263},
		{name: "function body not const", pipeline: `[{"$project": {"y": {"$function": {"body": "$x", "args": [], "lang": "js"}}}}]`, code: 31432},
		{name: "function args not array", pipeline: `[{"$project": {"y": {"$function": {"body": "function() {}", "args": "$x", "lang": "js"}}}}]`,
			input: `[{"_id": 1, "x": 1}]`, code: 31266},
		{name: "accumulator", pipeline: `[{"$group": {"_id": "$g", "avg": ` + acc + `}}, {"$sort": {"_id": 1}}]`,
			input: in, want: `[{"_id": "a", "avg": 1.5}, {"_id": "b", "avg": 5.0}]`},
		{name: "accumulator initArgs", pipeline: `[{"$group": {"_id": "$g", "s": {"$accumulator": {"init": "function(k) { return k }", "initArgs": ["$g"],
			"accumulate": "function(st, x) { return st + x }", "accumulateArgs": ["$x"], "merge": "function(a, b) { return a + b }", "lang": "js"}}}}, {"$sort": {"_id": 1}}]`,
			input: in, want: `[{"_id": "a", "s": "a12"}, {"_id": "b", "s": "b5"}]`},
		{name: "accumulator missing merge", pipeline: `[{"$group": {"_id": null, "s": {"$accumulator": {"init": "function() {}", "accumulate": "function() {}", "accumulateArgs": [], "lang": "js"}}}}]`, code: 4544709},
		{name: "accumulator unknown field", pipeline: `[{"$group": {"_id": null, "s": {"$accumulator": {"init": "function() {}", "bogus": 1}}}}]`, code: 4544706},
		{name: "accumulator args not array", pipeline: `[{"$group": {"_id": null, "s": {"$accumulator": {"init": "function() {}", "accumulate": "function() {}", "merge": "function() {}", "accumulateArgs": "$x", "lang": "js"}}}}]`,
			input: in, code: 4544712},
		{name: "accumulator finalize throws", pipeline: `[{"$group": {"_id": null, "s": {"$accumulator": {"init": "function() { return 0 }", "accumulate": "function(s) { return s }", "merge": "function(a) { return a }",
			"finalize": "function() { throw new Error('f') }", "accumulateArgs": [], "lang": "js"}}}}]`, input: in, code: 139},
	})
}
