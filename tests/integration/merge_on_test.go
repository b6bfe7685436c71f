package integration

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestMergeOn: $merge with an explicit 'on' matches target documents by
// those fields when a unique, non-partial index of the target has exactly
// them (in any order) or they are just _id (also for a target that does
// not exist yet); otherwise 51183 before anything is written. Each
// whenMatched / whenNotMatched mode acts on the documents so matched.
func TestMergeOn(t *testing.T) {
	_, c := startServer(t)
	ctx := tctx(t, 30*opTimeout)
	db := c.Database("mergeon")
	src := db.Collection("src")
	_, err := src.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}, {Key: "b", Value: "x"}, {Key: "v", Value: 10}},
		bson.D{{Key: "_id", Value: 2}, {Key: "a", Value: 2}, {Key: "b", Value: "x"}, {Key: "v", Value: 20}},
		bson.D{{Key: "_id", Value: 3}, {Key: "a", Value: 3}, {Key: "b", Value: "y"}, {Key: "v", Value: 30}},
	})
	if err != nil {
		t.Fatal(err)
	}
	merge := func(spec bson.D, pre ...bson.D) error {
		p := bson.A{}
		for _, st := range pre {
			p = append(p, st)
		}
		cur, err := src.Aggregate(ctx, append(p, bson.D{{Key: "$merge", Value: spec}}))
		if err == nil {
			err = cur.Close(ctx)
		}
		return err
	}
	noID := bson.D{{Key: "$project", Value: bson.D{{Key: "_id", Value: 0}}}}

	// on: "_id", explicit, into a collection that does not exist yet.
	if err := merge(bson.D{{Key: "into", Value: "byid"}, {Key: "on", Value: "_id"}, {Key: "whenMatched", Value: "replace"}}); err != nil {
		t.Fatalf("$merge on _id into a new collection: %v", err)
	}
	wantDocs(ctx, t, db.Collection("byid"), bson.D{}, 3)
	if err := merge(bson.D{{Key: "into", Value: "byid"}, {Key: "on", Value: bson.A{"_id"}}, {Key: "whenMatched", Value: "fail"}}); err == nil {
		t.Fatalf("$merge on _id, whenMatched fail, every document matching: no error")
	} else {
		wantCode(t, err, 11000, "whenMatched fail")
	}

	// Fields without a supporting unique index: 51183, nothing written.
	tgt := db.Collection("tgt")
	wantCode(t, merge(bson.D{{Key: "into", Value: "tgt"}, {Key: "on", Value: "a"}}), 51183, "on a, target missing")
	if _, err := tgt.InsertOne(ctx, bson.D{{Key: "a", Value: 1}, {Key: "b", Value: "x"}, {Key: "old", Value: true}}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, merge(bson.D{{Key: "into", Value: "tgt"}, {Key: "on", Value: bson.A{"a", "b"}}}), 51183, "on [a, b], no index")
	mergeIndex(ctx, t, tgt, bson.D{{Key: "a", Value: 1}}, options.Index().SetUnique(true).SetPartialFilterExpression(bson.D{{Key: "a", Value: bson.D{{Key: "$gt", Value: 0}}}}))
	mergeIndex(ctx, t, tgt, bson.D{{Key: "b", Value: 1}, {Key: "a", Value: 1}}, options.Index())
	wantCode(t, merge(bson.D{{Key: "into", Value: "tgt"}, {Key: "on", Value: "a"}}), 51183, "on a, partial unique index")
	wantCode(t, merge(bson.D{{Key: "into", Value: "tgt"}, {Key: "on", Value: bson.A{"a", "b"}}}), 51183, "on [a, b], non-unique index")
	wantDocs(ctx, t, tgt, bson.D{}, 1)

	// A unique index on {a, b}: 'on' in the other order is supported.
	mergeIndex(ctx, t, tgt, bson.D{{Key: "a", Value: 1}, {Key: "b", Value: 1}}, options.Index().SetUnique(true))
	if err := merge(bson.D{{Key: "into", Value: "tgt"}, {Key: "on", Value: bson.A{"b", "a"}}, {Key: "whenMatched", Value: "merge"}, {Key: "whenNotMatched", Value: "insert"}}, noID); err != nil {
		t.Fatalf("$merge on [b, a] with a unique {a, b} index: %v", err)
	}
	wantDocs(ctx, t, tgt, bson.D{}, 3)
	wantDocs(ctx, t, tgt, bson.D{{Key: "a", Value: 1}, {Key: "old", Value: true}, {Key: "v", Value: 10}}, 1)

	// keepExisting and a whenMatched pipeline with $$new, then discard.
	if err := merge(bson.D{{Key: "into", Value: "tgt"}, {Key: "on", Value: bson.A{"a", "b"}},
		{Key: "whenMatched", Value: bson.A{bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: bson.D{{Key: "$add", Value: bson.A{"$v", "$$new.v"}}}}}}}}}}, noID); err != nil {
		t.Fatalf("whenMatched pipeline: %v", err)
	}
	wantDocs(ctx, t, tgt, bson.D{{Key: "a", Value: 3}, {Key: "v", Value: 60}}, 1)
	if err := merge(bson.D{{Key: "into", Value: "tgt"}, {Key: "on", Value: bson.A{"a", "b"}}, {Key: "whenMatched", Value: "keepExisting"}, {Key: "whenNotMatched", Value: "discard"}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "b", Value: "z"}, {Key: "v", Value: 0}}}}, noID); err != nil {
		t.Fatalf("whenNotMatched discard: %v", err)
	}
	wantDocs(ctx, t, tgt, bson.D{}, 3)
	err = merge(bson.D{{Key: "into", Value: "tgt"}, {Key: "on", Value: bson.A{"a", "b"}}, {Key: "whenNotMatched", Value: "fail"}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "b", Value: "z"}}}}, noID)
	wantCode(t, err, 13113, "whenNotMatched fail")
	// An 'on' field missing from a result document.
	wantCode(t, merge(bson.D{{Key: "into", Value: "tgt"}, {Key: "on", Value: bson.A{"a", "b"}}}, bson.D{{Key: "$unset", Value: "b"}}), 51132, "on field missing")
}

func wantDocs(ctx context.Context, t *testing.T, c *mongo.Collection, filter bson.D, n int64) {
	t.Helper()
	got, err := c.CountDocuments(ctx, filter)
	if err != nil {
		t.Fatal(err)
	}
	if got != n {
		t.Fatalf("%s: %d documents match %v, want %d", c.Name(), got, filter, n)
	}
}

func mergeIndex(ctx context.Context, t *testing.T, c *mongo.Collection, keys bson.D, o *options.IndexOptionsBuilder) {
	t.Helper()
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: keys, Options: o}); err != nil {
		t.Fatalf("createIndex %v: %v", keys, err)
	}
}
