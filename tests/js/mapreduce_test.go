package js

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/tests/harness"
)

// TestMapReduce: the deprecated mapReduce command, inline and into a
// collection (replace, and merge into another database), with query,
// scope and finalize, and its errors.
func TestMapReduce(t *testing.T) {
	cl := harness.Start(t).Client(t)
	db := cl.Database("js")
	coll := db.Collection("orders")
	var docs []any
	for i := 0; i < 3500; i++ { // a key with more values than one reduce batch
		docs = append(docs, bson.D{{Key: "cust", Value: []string{"a", "b", "c"}[i%3]}, {Key: "amt", Value: int32(i % 10)}})
	}
	if _, err := coll.InsertMany(tctx(t), docs); err != nil {
		t.Fatal(err)
	}
	mapFn := bson.JavaScript("function() { emit(this.cust, this.amt * k); }")
	reduceFn := "function(key, vals) { return Array.sum(vals); }"
	var inline struct {
		Results []struct {
			ID    string  `bson:"_id"`
			Value float64 `bson:"value"`
		}
	}
	err := db.RunCommand(tctx(t), bson.D{{Key: "mapReduce", Value: "orders"}, {Key: "map", Value: mapFn}, {Key: "reduce", Value: reduceFn},
		{Key: "out", Value: bson.D{{Key: "inline", Value: 1}}}, {Key: "scope", Value: bson.D{{Key: "k", Value: 2}}}}).Decode(&inline)
	// Sums of amt per customer: i%10 over i%3 classes of 3500 documents.
	want := map[string]float64{}
	for i := 0; i < 3500; i++ {
		want[[]string{"a", "b", "c"}[i%3]] += float64(2 * (i % 10))
	}
	if err != nil || len(inline.Results) != 3 {
		t.Fatalf("inline: %+v, %v", inline, err)
	}
	for _, r := range inline.Results {
		if r.Value != want[r.ID] {
			t.Errorf("inline %s = %v, want %v", r.ID, r.Value, want[r.ID])
		}
	}
	var res bson.D
	err = db.RunCommand(tctx(t), bson.D{{Key: "mapReduce", Value: "orders"}, {Key: "map", Value: "function() { emit(this.cust, 1); }"},
		{Key: "reduce", Value: "function(k, vals) { return Array.sum(vals); }"}, {Key: "query", Value: bson.D{{Key: "amt", Value: 0}}},
		{Key: "finalize", Value: "function(k, v) { return {n: v, key: k}; }"}, {Key: "out", Value: "counts"}}).Decode(&res)
	if err != nil || field(res, "result") != "counts" {
		t.Fatalf("out counts: %v, %v", res, err)
	}
	var counts []bson.D
	cur, err := db.Collection("counts").Find(tctx(t), bson.D{})
	if err == nil {
		err = cur.All(tctx(t), &counts)
	}
	if err != nil || len(counts) != 3 {
		t.Fatalf("counts: %v, %v", counts, err)
	}
	if v, _ := field(counts[0], "value").(bson.D); field(v, "key") != "a" || field(v, "n") == nil {
		t.Errorf("finalized value: %v", counts[0])
	}
	err = db.RunCommand(tctx(t), bson.D{{Key: "mapReduce", Value: "orders"}, {Key: "map", Value: "function() { emit(this.amt, 1); }"},
		{Key: "reduce", Value: "function(k, vals) { return vals.length; }"}, {Key: "out", Value: bson.D{{Key: "merge", Value: "byamt"}, {Key: "db", Value: "jsout"}}}}).Decode(&res)
	if n, err2 := cl.Database("jsout").Collection("byamt").CountDocuments(tctx(t), bson.D{}); err != nil || err2 != nil || n != 10 {
		t.Errorf("merge into jsout.byamt: %v documents (%v, %v, reply %v)", n, err, err2, res)
	}
	// out {reduce}: run twice, each key's existing and new values reduce.
	for i := 0; i < 2; i++ {
		err = db.RunCommand(tctx(t), bson.D{{Key: "mapReduce", Value: "orders"}, {Key: "map", Value: "function() { emit(this.cust, 1); }"},
			{Key: "reduce", Value: "function(k, vals) { return Array.sum(vals); }"}, {Key: "out", Value: bson.D{{Key: "reduce", Value: "totals"}}}}).Decode(&res)
		if err != nil {
			t.Fatalf("out reduce #%d: %v", i, err)
		}
	}
	var total bson.D
	if err := db.Collection("totals").FindOne(tctx(t), bson.D{{Key: "_id", Value: "a"}}).Decode(&total); err != nil || field(total, "value") != 2.0*1167 {
		t.Errorf("out reduce twice: %v, %v; want a = %v", total, err, 2.0*1167)
	}
	for _, tc := range []struct {
		name string
		cmd  bson.D
		code int32
	}{
		{"emit with one argument", bson.D{{Key: "map", Value: "function() { emit(1) }"}, {Key: "reduce", Value: reduceFn}, {Key: "out", Value: bson.D{{Key: "inline", Value: 1}}}}, 139},
		{"map not code", bson.D{{Key: "map", Value: 5}, {Key: "reduce", Value: reduceFn}, {Key: "out", Value: bson.D{{Key: "inline", Value: 1}}}}, 2},
		{"out reduce with finalize", bson.D{{Key: "map", Value: mapFn}, {Key: "reduce", Value: reduceFn}, {Key: "finalize", Value: "function(k, v) { return v; }"},
			{Key: "out", Value: bson.D{{Key: "reduce", Value: "x"}}}}, 238},
		{"no out", bson.D{{Key: "map", Value: mapFn}, {Key: "reduce", Value: reduceFn}}, 40414},
	} {
		cmd := append(bson.D{{Key: "mapReduce", Value: "orders"}}, tc.cmd...)
		wantCode(t, tc.name, db.RunCommand(tctx(t), cmd).Err(), tc.code, "")
	}
}
