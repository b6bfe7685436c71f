package integration

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestOutReplacesAtomically: $out builds a temporary collection with the
// target's options and indexes and renames it over the target, so a
// concurrent reader sees the old contents or the new, never a
// half-filled target; the target keeps its secondary indexes and
// validator; a failing $out leaves it as it was and no temporary
// collection behind; an empty result still creates the target.
func TestOutReplacesAtomically(t *testing.T) {
	_, c := startServer(t)
	ctx := tctx(t, 60*opTimeout)
	db := c.Database("outatomic")
	const big = 20000
	src := db.Collection("src")
	docs := make([]any, big)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "a", Value: i}}
	}
	if _, err := src.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	validator := bson.D{{Key: "a", Value: bson.D{{Key: "$type", Value: "number"}}}}
	if err := db.CreateCollection(ctx, "tgt", options.CreateCollection().SetValidator(validator)); err != nil {
		t.Fatal(err)
	}
	tgt := db.Collection("tgt")
	if _, err := tgt.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "a", Value: 1}}, Options: options.Index().SetUnique(true)}); err != nil {
		t.Fatal(err)
	}
	old := make([]any, 100)
	for i := range old {
		old[i] = bson.D{{Key: "_id", Value: -1 - i}, {Key: "a", Value: -1 - i}}
	}
	if _, err := tgt.InsertMany(ctx, old); err != nil {
		t.Fatal(err)
	}

	// A reader counting the target while $out runs.
	var stop atomic.Bool
	seen := make(chan map[int64]int, 1)
	go func() {
		counts := map[int64]int{}
		for !stop.Load() {
			n, err := tgt.CountDocuments(context.Background(), bson.D{})
			if err == nil {
				counts[n]++
			}
		}
		seen <- counts
	}()
	out := func(pipeline bson.A) error {
		cur, err := src.Aggregate(ctx, append(pipeline, bson.D{{Key: "$out", Value: "tgt"}}))
		if err == nil {
			err = cur.Close(ctx)
		}
		return err
	}
	err := out(bson.A{})
	stop.Store(true)
	counts := <-seen
	if err != nil {
		t.Fatalf("$out: %v", err)
	}
	for n := range counts {
		if n != 100 && n != big {
			t.Fatalf("a reader saw the target with %d documents during $out (counts %v), want only 100 or %d", n, counts, big)
		}
	}
	if n, _ := tgt.CountDocuments(ctx, bson.D{}); n != big {
		t.Fatalf("after $out the target holds %d documents, want %d", n, big)
	}
	checkOutTarget(ctx, t, db, validator)

	// Duplicates on the target's unique index: the $out fails, the target
	// is untouched, nothing temporary is left.
	err = out(bson.A{bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: 1}}}}})
	wantCode(t, err, 11000, "$out with duplicates on the target's unique index")
	if n, _ := tgt.CountDocuments(ctx, bson.D{}); n != big {
		t.Fatalf("after a failed $out the target holds %d documents, want %d", n, big)
	}
	checkOutTarget(ctx, t, db, validator)

	// An empty result creates an empty target.
	if err := out(bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "nope", Value: true}}}}}); err != nil {
		t.Fatal(err)
	}
	cur, err := src.Aggregate(ctx, bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "nope", Value: true}}}}, bson.D{{Key: "$out", Value: "fresh"}}})
	if err != nil {
		t.Fatal(err)
	}
	_ = cur.Close(ctx)
	names, err := db.ListCollectionNames(ctx, bson.D{{Key: "name", Value: "fresh"}})
	if err != nil || len(names) != 1 {
		t.Fatalf("$out of no documents into a new collection: collections %v (%v)", names, err)
	}
}

// checkOutTarget: tgt has its unique index on a and its validator, and no
// tmp.agg_out collection is left.
func checkOutTarget(ctx context.Context, t *testing.T, db *mongo.Database, validator bson.D) {
	t.Helper()
	specs, err := db.Collection("tgt").Indexes().ListSpecifications(ctx)
	if err != nil {
		t.Fatal(err)
	}
	unique := false
	for _, s := range specs {
		if s.Name == "a_1" && s.Unique != nil && *s.Unique {
			unique = true
		}
	}
	if !unique {
		t.Fatalf("the target lost its unique index a_1: %+v", specs)
	}
	specsC, err := db.ListCollectionSpecifications(ctx, bson.D{{Key: "name", Value: "tgt"}})
	if err != nil || len(specsC) != 1 || !strings.Contains(specsC[0].Options.String(), "validator") {
		t.Fatalf("the target's options after $out: %+v (%v), want its validator", specsC, err)
	}
	names, err := db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if strings.HasPrefix(n, "tmp.agg_out.") {
			t.Fatalf("a temporary collection is left: %v", names)
		}
	}
}
