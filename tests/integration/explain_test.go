package integration

import (
	"sort"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// idSet runs find(filter).sort(sortSpec) and returns the _ids, sorted unless
// sortSpec is given (then in result order). _ids must be int32.
func idSet(t *testing.T, coll *mongo.Collection, filter, sortSpec bson.D) []int32 {
	t.Helper()
	ctx := tctx(t, opTimeout)
	cmd := bson.D{{Key: "find", Value: coll.Name()}, {Key: "filter", Value: filter}}
	if sortSpec != nil {
		cmd = append(cmd, bson.E{Key: "sort", Value: sortSpec})
	}
	cur, err := coll.Database().RunCommandCursor(ctx, cmd)
	if err != nil {
		t.Fatalf("find %s: %v", asJSON(filter), err)
	}
	var out []int32
	for _, d := range decodeAll(t, ctx, cur) {
		id, ok := field(d, "_id").(int32)
		if !ok {
			t.Fatalf("non-int32 _id in %s", asJSON(d))
		}
		out = append(out, id)
	}
	if sortSpec == nil {
		sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	}
	return out
}

// planStages explains find(filter).sort(sortSpec) and returns every "stage"
// name in the winning plan, outermost first.
func planStages(t *testing.T, coll *mongo.Collection, filter, sortSpec bson.D) []string {
	t.Helper()
	find := bson.D{{Key: "find", Value: coll.Name()}, {Key: "filter", Value: filter}}
	if sortSpec != nil {
		find = append(find, bson.E{Key: "sort", Value: sortSpec})
	}
	var res bson.D
	err := coll.Database().RunCommand(tctx(t, opTimeout), bson.D{{Key: "explain", Value: find},
		{Key: "verbosity", Value: "queryPlanner"}}).Decode(&res)
	if err != nil {
		t.Fatalf("explain %s: %v", asJSON(filter), err)
	}
	qp, _ := field(res, "queryPlanner").(bson.D)
	wp, _ := field(qp, "winningPlan").(bson.D)
	if qp2, ok := field(wp, "queryPlan").(bson.D); ok { // SBE-style explain
		wp = qp2
	}
	if wp == nil {
		t.Fatalf("explain has no queryPlanner.winningPlan: %s", asJSON(res))
	}
	var stages []string
	collectStages(wp, &stages)
	return stages
}

func collectStages(d bson.D, out *[]string) {
	for _, e := range d {
		switch v := e.Value.(type) {
		case string:
			if e.Key == "stage" {
				*out = append(*out, v)
			}
		case bson.D:
			collectStages(v, out)
		case bson.A:
			for _, x := range v {
				if sub, ok := x.(bson.D); ok {
					collectStages(sub, out)
				}
			}
		}
	}
}

// wantStage fails t unless the winning plan contains stage and, for IXSCAN,
// no COLLSCAN (and vice versa).
func wantStage(t *testing.T, coll *mongo.Collection, filter, sortSpec bson.D, stage string) {
	t.Helper()
	stages := planStages(t, coll, filter, sortSpec)
	joined := strings.Join(stages, ",")
	other := map[string]string{"IXSCAN": "COLLSCAN", "COLLSCAN": "IXSCAN"}[stage]
	if !strings.Contains(joined, stage) || (other != "" && strings.Contains(joined, other)) {
		t.Errorf("explain find(%s).sort(%s): stages [%s], want %s", asJSON(filter), asJSON(sortSpec), joined, stage)
	}
}

func testExplainStages(t *testing.T, coll *mongo.Collection) {
	docs := make([]bson.D, 0, 50)
	for i := range 50 {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "a", Value: int32(i % 7)}, {Key: "b", Value: int32(i)}})
	}
	insertDocs(t, coll, docs...)
	createIndex(t, coll, bson.D{{Key: "a", Value: 1}}, nil)
	cases := []struct {
		name         string
		filter, sort bson.D
		stage        string
	}{
		{"equality", bson.D{{Key: "a", Value: 3}}, nil, "IXSCAN"},
		{"range", bson.D{{Key: "a", Value: bson.D{{Key: "$gte", Value: 2}, {Key: "$lt", Value: 4}}}}, nil, "IXSCAN"},
		{"in", bson.D{{Key: "a", Value: bson.D{{Key: "$in", Value: bson.A{1, 5}}}}}, nil, "IXSCAN"},
		{"sort", bson.D{}, bson.D{{Key: "a", Value: 1}}, "IXSCAN"},
		{"unindexed", bson.D{{Key: "b", Value: 3}}, nil, "COLLSCAN"},
		{"empty", bson.D{}, nil, "COLLSCAN"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { wantStage(t, coll, tc.filter, tc.sort, tc.stage) })
	}
	got := idSet(t, coll, bson.D{{Key: "a", Value: bson.D{{Key: "$in", Value: bson.A{1, 5}}}}}, nil)
	if len(got) != 14 {
		t.Errorf("{a: {$in: [1,5]}} returned %d docs, want 14", len(got))
	}
	got = idSet(t, coll, bson.D{{Key: "b", Value: bson.D{{Key: "$lt", Value: 10}}}}, bson.D{{Key: "a", Value: -1}, {Key: "b", Value: 1}})
	want := []int32{6, 5, 4, 3, 2, 9, 1, 8, 0, 7}
	if asJSON(bson.D{{Key: "v", Value: got}}) != asJSON(bson.D{{Key: "v", Value: want}}) {
		t.Errorf("sort {a:-1,b:1} = %v, want %v", got, want)
	}
}
