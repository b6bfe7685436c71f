package integration

import (
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestIxCompoundWildcardIndex: MongoDB 7.0's compound wildcard indexes are
// created (listIndexes shows them), refuse what MongoDB refuses (a "$**"
// term covering a regular field, two wildcard terms: 67; an array in a
// regular field: the write fails), keep one entry per document and
// wildcard value (validate agrees with the documents, after updates and
// deletes and a restart); the planner uses them (equality or ranges on the
// regular terms, an eligible field under the wildcard term) and every
// query, hinted to either index or not, returns what a collection scan
// returns.
func TestIxCompoundWildcardIndex(t *testing.T) {
	srv, c := startServer(t)
	coll := freshColl(t, c, "ixcwi")
	ctx := tctx(t, opTimeout)
	bad := []mongo.IndexModel{
		{Keys: bson.D{{Key: "$**", Value: 1}, {Key: "a", Value: 1}}},
		{Keys: bson.D{{Key: "p.$**", Value: 1}, {Key: "q.$**", Value: 1}}},
		{Keys: bson.D{{Key: "p.$**", Value: 1}, {Key: "p.x", Value: 1}}},
	}
	for _, m := range bad {
		_, err := coll.Indexes().CreateOne(ctx, m)
		wantCode(t, err, 67, "invalid compound wildcard "+asJSON(m.Keys))
	}
	good := []mongo.IndexModel{
		{Keys: bson.D{{Key: "a", Value: 1}, {Key: "p.$**", Value: 1}}, Options: options.Index().SetName("a_p")},
		{Keys: bson.D{{Key: "$**", Value: 1}, {Key: "a", Value: -1}}, Options: options.Index().SetName("all_a").
			SetWildcardProjection(bson.D{{Key: "a", Value: 0}})},
	}
	if _, err := coll.Indexes().CreateMany(ctx, good); err != nil {
		t.Fatal(err)
	}
	if spec := indexSpec(t, coll, "all_a"); spec == nil || asJSON(field(spec, "key")) != `{"$**":1,"a":-1}` {
		t.Fatalf("listIndexes all_a = %s", asJSON(spec))
	}
	var docs []any
	for i := range int32(40) {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "a", Value: i % 4}, {Key: "p", Value: bson.D{{Key: "x", Value: i % 3}, {Key: "y", Value: bson.A{i, i + 1}}}}})
	}
	docs = append(docs, bson.D{{Key: "_id", Value: int32(100)}, {Key: "a", Value: 1}})
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(200)}, {Key: "a", Value: bson.A{1, 2}}, {Key: "p", Value: bson.D{{Key: "x", Value: 1}}}})
	if err == nil {
		t.Errorf("an array in a regular field of a compound wildcard index was accepted")
	}
	if _, err := coll.UpdateMany(ctx, bson.D{{Key: "a", Value: 2}}, bson.D{{Key: "$set", Value: bson.D{{Key: "p.x", Value: 9}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.DeleteMany(ctx, bson.D{{Key: "a", Value: 3}}); err != nil {
		t.Fatal(err)
	}
	ixValidate(t, coll, map[string]string{"a_p": "91", "all_a": "91"})
	filter := bson.D{{Key: "a", Value: 1}, {Key: "p.x", Value: 1}}
	if n, err := coll.CountDocuments(ctx, filter); err != nil || n != 4 {
		t.Fatalf("count %s = %d, %v; want 4", asJSON(filter), n, err)
	}
	wantStage(t, coll, filter, nil, "IXSCAN")
	wantStage(t, coll, bson.D{{Key: "a", Value: 2}}, nil, "IXSCAN")
	wantStage(t, coll, bson.D{{Key: "p.y", Value: 7}}, nil, "IXSCAN")
	filters := []bson.D{filter, {{Key: "a", Value: 2}}, {{Key: "a", Value: bson.D{{Key: "$gte", Value: 1}}}, {Key: "p.x", Value: 0}},
		{{Key: "p.y", Value: 7}}, {{Key: "a", Value: 1}, {Key: "p.y", Value: bson.D{{Key: "$gt", Value: 20}}}},
		{{Key: "a", Value: 1}, {Key: "p", Value: bson.D{{Key: "$exists", Value: false}}}}, {{Key: "a", Value: nil}},
		{{Key: "p.x", Value: 9}, {Key: "a", Value: 2}}}
	for _, f := range filters {
		scan := wildcardIDs(t, coll, f, options.Find().SetHint(bson.D{{Key: "$natural", Value: 1}}))
		for _, hint := range []any{nil, "a_p", "all_a"} {
			opts := options.Find()
			if hint != nil {
				opts.SetHint(hint)
			}
			if got := wildcardIDs(t, coll, f, opts); !slices.Equal(got, scan) {
				t.Errorf("find %s hint %v = %v, collection scan %v", asJSON(f), hint, got, scan)
			}
		}
	}
	srv.Restart(t)
	ixValidate(t, srv.Client(t).Database("ixcwi").Collection(coll.Name()), map[string]string{"a_p": "91", "all_a": "91"})
}

// ixValidate runs validate and checks it is valid with the given key
// counts per index.
func ixValidate(t *testing.T, coll *mongo.Collection, keys map[string]string) {
	t.Helper()
	var v bson.D
	if err := coll.Database().RunCommand(tctx(t, opTimeout), bson.D{{Key: "validate", Value: coll.Name()}}).Decode(&v); err != nil || field(v, "valid") != true {
		t.Fatalf("validate = %s, %v", asJSON(v), err)
	}
	per, _ := field(v, "keysPerIndex").(bson.D)
	for name, want := range keys {
		if got := asJSON(bson.D{{Key: "n", Value: field(per, name)}}); got != `{"n":`+want+`}` {
			t.Errorf("keysPerIndex %s = %s, want %s (%s)", name, got, want, asJSON(per))
		}
	}
}

// TestIxCompoundWildcardDifferential: random documents (values of every
// kind under the wildcard term, missing or null regular fields) and random
// filters on the regular and wildcard fields answer the same through the
// planner (with both compound wildcard indexes) as by a collection scan.
// RELAYDB_IT_SEED replays.
func TestIxCompoundWildcardDifferential(t *testing.T) {
	_, c := startServer(t)
	coll := freshColl(t, c, "ixcwid")
	ctx := tctx(t, 3*opTimeout)
	models := []mongo.IndexModel{
		{Keys: bson.D{{Key: "a", Value: 1}, {Key: "p.$**", Value: 1}}},
		{Keys: bson.D{{Key: "p.$**", Value: -1}, {Key: "b", Value: 1}}},
	}
	if _, err := coll.Indexes().CreateMany(ctx, models); err != nil {
		t.Fatal(err)
	}
	r := newRand(seed(t))
	var docs []any
	for i := range 300 {
		d := bson.D{{Key: "_id", Value: int32(i)}}
		if r.IntN(5) > 0 {
			d = append(d, bson.E{Key: "a", Value: int32(r.IntN(4))})
		}
		if r.IntN(5) == 0 {
			d = append(d, bson.E{Key: "b", Value: nil})
		} else {
			d = append(d, bson.E{Key: "b", Value: int32(r.IntN(3))})
		}
		if r.IntN(6) > 0 {
			d = append(d, bson.E{Key: "p", Value: bson.D{{Key: "x", Value: wildcardValue(r)}, {Key: "y", Value: wildcardValue(r)}}})
		}
		docs = append(docs, d)
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	for range 150 {
		f := bson.D{}
		if r.IntN(2) == 0 {
			f = append(f, bson.E{Key: "a", Value: ixRandPred(r)})
		}
		if r.IntN(2) == 0 {
			f = append(f, bson.E{Key: "b", Value: ixRandPred(r)})
		}
		if r.IntN(3) > 0 {
			f = append(f, bson.E{Key: []string{"p.x", "p.y", "p.x.x"}[r.IntN(3)], Value: ixRandPred(r)})
		}
		scan := wildcardIDs(t, coll, f, options.Find().SetHint(bson.D{{Key: "$natural", Value: 1}}))
		for _, hint := range []any{nil, "a_1_p.$**_1", "p.$**_-1_b_1"} {
			opts := options.Find()
			if hint != nil {
				opts.SetHint(hint)
			}
			if got := wildcardIDs(t, coll, f, opts); !slices.Equal(got, scan) {
				t.Fatalf("find %s hint %v = %v, collection scan %v", asJSON(f), hint, got, scan)
			}
		}
	}
}

// ixRandPred is an equality, $in or range on small ints (or a value of
// any kind for equality).
func ixRandPred(r interface{ IntN(int) int }) any {
	switch r.IntN(4) {
	case 0:
		return wildcardValue(r)
	case 1:
		return bson.D{{Key: "$in", Value: bson.A{int32(r.IntN(4)), int32(r.IntN(10))}}}
	case 2:
		return bson.D{{Key: "$gte", Value: int32(r.IntN(5))}, {Key: "$lt", Value: int32(3 + r.IntN(6))}}
	}
	return int32(r.IntN(4))
}
