package integration

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// TestExplainOnView: a read explained on a view is planned on the
// collection under the view chain (queryPlanner.namespace names it), with
// the view's leading $match, or the read's own filter when the view has
// no pipeline; a write explained on a view is CommandNotSupportedOnView.
func TestExplainOnView(t *testing.T) {
	_, c := startServer(t)
	ctx := tctx(t, 30*opTimeout)
	db := c.Database("vexplain")
	src := db.Collection("c")
	var docs []any
	for i := range 20 {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "x", Value: i}, {Key: "g", Value: i % 4}})
	}
	if _, err := src.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "x", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateView(ctx, "all", "c", mongo.Pipeline{}); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateView(ctx, "low", "c", mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "g", Value: bson.D{{Key: "$lt", Value: 2}}}}}}}); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateView(ctx, "lower", "low", mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "x", Value: 3}}}}}); err != nil {
		t.Fatal(err)
	}
	explain := func(cmd bson.D) bson.Raw {
		t.Helper()
		res, err := db.RunCommand(ctx, bson.D{{Key: "explain", Value: cmd}}).Raw()
		if err != nil {
			t.Fatalf("explain %v: %v", cmd, err)
		}
		if ns := res.Lookup("queryPlanner", "namespace").StringValue(); ns != "vexplain.c" {
			t.Fatalf("explain %v: namespace %q, want vexplain.c (%s)", cmd, ns, res)
		}
		return res
	}
	// A view without a pipeline: the find's filter uses the index on x.
	res := explain(bson.D{{Key: "find", Value: "all"}, {Key: "filter", Value: bson.D{{Key: "x", Value: 7}}}})
	if stage := res.Lookup("queryPlanner", "winningPlan").String(); !strings.Contains(stage, "IXSCAN") {
		t.Fatalf("find on a view without a pipeline, filter on x: winning plan %s, want an IXSCAN", stage)
	}
	if n := res.Lookup("executionStats", "nReturned").AsInt64(); n != 1 {
		t.Fatalf("nReturned %d, want 1", n)
	}
	// The view's $match is the query planned (innermost view first).
	for _, cmd := range []bson.D{
		{{Key: "find", Value: "low"}},
		{{Key: "count", Value: "low"}},
		{{Key: "distinct", Value: "low"}, {Key: "key", Value: "x"}},
		{{Key: "aggregate", Value: "lower"}, {Key: "pipeline", Value: bson.A{}}, {Key: "cursor", Value: bson.D{}}},
	} {
		res := explain(cmd)
		if q := res.Lookup("queryPlanner", "parsedQuery").String(); !strings.Contains(q, `"g"`) {
			t.Fatalf("explain %v: parsedQuery %s, want the view's $match on g", cmd, q)
		}
		if got := res.Lookup("command").String(); !strings.Contains(got, cmd[0].Value.(string)) {
			t.Fatalf("explain %v: command %s, want the command sent", cmd, got)
		}
	}
	err := db.RunCommand(ctx, bson.D{{Key: "explain", Value: bson.D{{Key: "update", Value: "low"},
		{Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}, {Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: 1}}}}}}}}}}}).Err()
	wantCode(t, err, 166, "explain update on a view")
}
