package integration

import (
	"fmt"
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// wildcardIDs returns the sorted _ids find(filter) returns with opts.
func wildcardIDs(t *testing.T, coll *mongo.Collection, filter bson.D, opts *options.FindOptionsBuilder) []string {
	t.Helper()
	cur, err := coll.Find(tctx(t, opTimeout), filter, opts)
	if err != nil {
		t.Fatalf("find %s: %v", asJSON(filter), err)
	}
	var ids []string
	for _, d := range decodeAll(t, tctx(t, opTimeout), cur) {
		ids = append(ids, fmt.Sprint(field(d, "_id")))
	}
	slices.Sort(ids)
	return ids
}

func wildcardValue(r interface{ IntN(int) int }) any {
	switch r.IntN(7) {
	case 0:
		return int32(r.IntN(10))
	case 1:
		return fmt.Sprintf("s%d", r.IntN(5))
	case 2:
		return nil
	case 3:
		return bson.A{int32(r.IntN(10)), int32(r.IntN(10))}
	case 4:
		return bson.D{{Key: "x", Value: int32(r.IntN(10))}}
	case 5:
		return bson.A{bson.D{{Key: "x", Value: int32(r.IntN(10))}}, int32(r.IntN(10))}
	}
	return float64(r.IntN(10)) + 0.5
}

// TestWildcardIndexPlanner: without a hint, a {"$**": 1} index serves
// equality, $in and ranges on one field (explain: IXSCAN with key pattern
// {$_path: 1, field: 1}), and every query, eligible or not, returns what a
// collection scan returns (randomized; RELAYDB_IT_SEED replays).
func TestWildcardIndexPlanner(t *testing.T) {
	_, c := startServer(t)
	t.Run("all", func(t *testing.T) { testWildcard(t, c, "$**", "b", nil) })
	t.Run("prefix", func(t *testing.T) { testWildcard(t, c, "a.$**", "a.x", nil) })
	t.Run("projection", func(t *testing.T) {
		testWildcard(t, c, "$**", "a.x", bson.D{{Key: "a.x", Value: 1}, {Key: "c", Value: 1}})
	})
}

// testWildcard: keyField is the wildcard key; covered is a path it covers.
func testWildcard(t *testing.T, c *mongo.Client, keyField, covered string, proj bson.D) {
	coll := freshColl(t, c, "wildcard")
	ctx := tctx(t, opTimeout)
	opts := options.Index()
	if proj != nil {
		opts.SetWildcardProjection(proj)
	}
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: keyField, Value: 1}}, Options: opts}); err != nil {
		t.Fatal(err)
	}
	r := newRand(seed(t))
	docs := make([]any, 0, 300)
	for i := range 300 {
		d := bson.D{{Key: "_id", Value: int32(i)}}
		for _, f := range []string{"a", "b", "c"} {
			if r.IntN(4) > 0 {
				d = append(d, bson.E{Key: f, Value: wildcardValue(r)})
			}
		}
		docs = append(docs, d)
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	var plan bson.D
	err := coll.Database().RunCommand(ctx, bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: coll.Name()},
		{Key: "filter", Value: bson.D{{Key: covered, Value: 5}}}}}}).Decode(&plan)
	if err != nil {
		t.Fatal(err)
	}
	ix := findStage(field(field(plan, "queryPlanner").(bson.D), "winningPlan").(bson.D), "IXSCAN")
	want := bson.D{{Key: "$_path", Value: int32(1)}, {Key: covered, Value: int32(1)}}
	if ix == nil || asJSON(field(ix, "keyPattern")) != asJSON(want) {
		t.Fatalf("explain find {%s: 5}: IXSCAN %s, want keyPattern %s", covered, asJSON(ix), asJSON(want))
	}
	wantStage(t, coll, bson.D{{Key: covered, Value: bson.D{{Key: "$gt", Value: 3}}}}, nil, "IXSCAN")
	wantStage(t, coll, bson.D{{Key: covered, Value: nil}}, nil, "COLLSCAN")
	wantStage(t, coll, bson.D{{Key: covered, Value: bson.D{{Key: "$ne", Value: 3}}}}, nil, "COLLSCAN")

	natural := options.Find().SetHint(bson.D{{Key: "$natural", Value: 1}})
	exists := bson.D{{Key: covered, Value: bson.D{{Key: "$exists", Value: true}}}}
	wantStage(t, coll, exists, nil, "IXSCAN")
	for _, p := range []string{"a", "b", "c", "a.x", "b.x", "zz"} {
		flt := bson.D{{Key: p, Value: bson.D{{Key: "$exists", Value: true}}}}
		if got, exp := wildcardIDs(t, coll, flt, options.Find()), wildcardIDs(t, coll, flt, natural); !slices.Equal(got, exp) {
			t.Fatalf("find %s: %d documents, collection scan %d", asJSON(flt), len(got), len(exp))
		}
	}
	ops := []string{"$eq", "$gt", "$gte", "$lt", "$lte", "$in", "$ne", "$nin", "$exists"}
	paths := []string{"a", "b", "c", "a.x", "b.x", "a.0", "c.x"}
	for range 300 {
		var filter bson.D
		for range 1 + r.IntN(2) {
			op := ops[r.IntN(len(ops))]
			var v any = wildcardValue(r)
			switch op {
			case "$in", "$nin":
				v = bson.A{wildcardValue(r), wildcardValue(r)}
			case "$exists":
				v = r.IntN(2) == 0
			}
			path := paths[r.IntN(len(paths))]
			if field(filter, path) != nil {
				continue
			}
			filter = append(filter, bson.E{Key: path, Value: bson.D{{Key: op, Value: v}}})
		}
		got := wildcardIDs(t, coll, filter, options.Find())
		exp := wildcardIDs(t, coll, filter, natural)
		if !slices.Equal(got, exp) {
			t.Fatalf("find %s: %d documents %v, collection scan %d %v", asJSON(filter), len(got), got, len(exp), exp)
		}
	}
}

// findStage returns the first stage named name in an explain tree, or nil.
func findStage(d bson.D, name string) bson.D {
	if field(d, "stage") == name {
		return d
	}
	for _, e := range d {
		switch v := e.Value.(type) {
		case bson.D:
			if s := findStage(v, name); s != nil {
				return s
			}
		case bson.A:
			for _, x := range v {
				if sub, ok := x.(bson.D); ok {
					if s := findStage(sub, name); s != nil {
						return s
					}
				}
			}
		}
	}
	return nil
}
