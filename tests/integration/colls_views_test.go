package integration

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

func TestViewsReadThroughPipeline(t *testing.T) {
	s, c := startServer(t)
	ctx := tctx(t, 30*opTimeout)
	db := c.Database("views")
	src := db.Collection("src")
	var docs []any
	for i := 1; i <= 6; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "a", Value: i}, {Key: "tags", Value: bson.A{"x", i % 2}}, {Key: "secret", Value: "s"}})
	}
	if _, err := src.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	pipeline := mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "a", Value: bson.D{{Key: "$gte", Value: 2}}}}}},
		{{Key: "$project", Value: bson.D{{Key: "secret", Value: 0}}}}}
	if err := db.CreateView(ctx, "big", "src", pipeline); err != nil {
		t.Fatalf("createView: %v", err)
	}
	if err := db.CreateView(ctx, "bigger", "big", mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "a", Value: bson.D{{Key: "$gte", Value: 4}}}}}}}); err != nil {
		t.Fatalf("view on view: %v", err)
	}
	check := func(c *mongo.Client, when string) {
		v := c.Database("views").Collection("big")
		cur, err := v.Find(ctx, bson.D{{Key: "a", Value: bson.D{{Key: "$lte", Value: 5}}}},
			options.Find().SetSort(bson.D{{Key: "a", Value: -1}}).SetSkip(1).SetLimit(2).SetProjection(bson.D{{Key: "a", Value: 1}}))
		if err != nil {
			t.Fatalf("%s: find: %v", when, err)
		}
		var got []bson.M
		if err := cur.All(ctx, &got); err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0]["a"] != int32(4) || got[1]["a"] != int32(3) || got[0]["secret"] != nil {
			t.Errorf("%s: find = %v", when, got)
		}
		if n, err := v.CountDocuments(ctx, bson.D{}); err != nil || n != 5 {
			t.Errorf("%s: countDocuments = %d, %v", when, n, err)
		}
		if n, err := c.Database("views").Collection("bigger").EstimatedDocumentCount(ctx); err != nil || n != 3 {
			t.Errorf("%s: estimatedDocumentCount(bigger) = %d, %v", when, n, err)
		}
		var tags []any
		if err := v.Distinct(ctx, "tags", bson.D{}).Decode(&tags); err != nil || len(tags) != 3 {
			t.Errorf("%s: distinct = %v, %v", when, tags, err)
		}
		specs, err := c.Database("views").ListCollectionSpecifications(ctx, bson.D{{Key: "type", Value: "view"}})
		if err != nil || len(specs) != 2 {
			t.Fatalf("%s: listCollections views = %v, %v", when, specs, err)
		}
		for _, sp := range specs {
			if sp.Type != "view" || !sp.ReadOnly || sp.Options.Lookup("viewOn").StringValue() == "" {
				t.Errorf("%s: spec = %+v", when, sp)
			}
		}
	}
	check(c, "before restart")
	// Writes and index builds on a view are refused.
	v := db.Collection("big")
	_, err := v.InsertOne(ctx, bson.D{{Key: "a", Value: 1}})
	wantCode(t, err, 166, "insert into view")
	_, err = v.UpdateMany(ctx, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "b", Value: 1}}}})
	wantCode(t, err, 166, "update view")
	_, err = v.DeleteMany(ctx, bson.D{})
	wantCode(t, err, 166, "delete from view")
	wantCode(t, v.FindOneAndDelete(ctx, bson.D{}).Err(), 166, "findAndModify on view")
	_, err = v.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "a", Value: 1}}})
	wantCode(t, err, 166, "createIndexes on view")
	_, err = src.Aggregate(ctx, mongo.Pipeline{{{Key: "$merge", Value: bson.D{{Key: "into", Value: "big"}}}}})
	wantCode(t, err, 166, "$merge into view")
	_, err = v.Indexes().List(ctx)
	wantCode(t, err, 166, "listIndexes on a view")
	wantCode(t, db.RunCommand(ctx, bson.D{{Key: "collStats", Value: "big"}}).Err(), 166, "collStats on a view")
	wantCode(t, c.Database("admin").RunCommand(ctx, bson.D{{Key: "renameCollection", Value: "views.big"}, {Key: "to", Value: "views.big2"}}).Err(), 166, "rename a view")
	// Bad definitions.
	run := func(cmd bson.D) error { return db.RunCommand(ctx, cmd).Err() }
	wantCode(t, run(bson.D{{Key: "create", Value: "self"}, {Key: "viewOn", Value: "self"}, {Key: "pipeline", Value: bson.A{}}}), 5, "self cycle")
	wantCode(t, run(bson.D{{Key: "create", Value: "o"}, {Key: "viewOn", Value: "src"},
		{Key: "pipeline", Value: bson.A{bson.D{{Key: "$out", Value: "x"}}}}}), 167, "$out in a view")
	wantCode(t, run(bson.D{{Key: "create", Value: "p"}, {Key: "viewOn", Value: "src"}, {Key: "pipeline", Value: 1}}), 14, "pipeline type")
	wantCode(t, run(bson.D{{Key: "create", Value: "q"}, {Key: "viewOn", Value: "src"}, {Key: "capped", Value: true}}), 72, "capped view")
	wantCode(t, run(bson.D{{Key: "create", Value: "r"}, {Key: "pipeline", Value: bson.A{}}}), 72, "pipeline without viewOn")
	wantCode(t, run(bson.D{{Key: "create", Value: "big"}, {Key: "viewOn", Value: "src"}}), 48, "view exists")
	wantCode(t, run(bson.D{{Key: "create", Value: "fr"}, {Key: "viewOn", Value: "src"}, {Key: "pipeline", Value: bson.A{}},
		{Key: "collation", Value: bson.D{{Key: "locale", Value: "xx_bogus"}}}}), 2, "view with an invalid collation") // tests/collation: views
	// Views survive a restart, and drop removes them.
	s.Restart(t)
	c2 := s.Client(t)
	check(c2, "after restart")
	if err := c2.Database("views").Collection("bigger").Drop(ctx); err != nil {
		t.Fatal(err)
	}
	names, _ := c2.Database("views").ListCollectionNames(ctx, bson.D{{Key: "type", Value: "view"}})
	if len(names) != 1 || names[0] != "big" {
		t.Errorf("views after drop = %v", names)
	}
}

func TestViewCollModRedefinesAndRefusesCycles(t *testing.T) {
	_, c := startServer(t)
	ctx := tctx(t, 10*opTimeout)
	db := c.Database("views")
	if _, err := db.Collection("src").InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}}, bson.D{{Key: "_id", Value: 2}, {Key: "a", Value: 2}}}); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateView(ctx, "v2", "src", mongo.Pipeline{}); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateView(ctx, "v1", "v2", mongo.Pipeline{}); err != nil {
		t.Fatal(err)
	}
	run := func(cmd bson.D) error { return db.RunCommand(ctx, cmd).Err() }
	match2 := bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "a", Value: 2}}}}}
	if err := run(bson.D{{Key: "collMod", Value: "v2"}, {Key: "viewOn", Value: "src"}, {Key: "pipeline", Value: match2}}); err != nil {
		t.Fatalf("collMod view: %v", err)
	}
	if n, err := db.Collection("v1").CountDocuments(ctx, bson.D{}); err != nil || n != 1 {
		t.Errorf("count through the redefined view = %d, %v", n, err)
	}
	wantCode(t, run(bson.D{{Key: "collMod", Value: "v2"}, {Key: "viewOn", Value: "v1"}, {Key: "pipeline", Value: bson.A{}}}), 5, "collMod closing a cycle")
	wantCode(t, run(bson.D{{Key: "collMod", Value: "v2"}, {Key: "viewOn", Value: "src"}}), 72, "collMod view without pipeline")
	wantCode(t, run(bson.D{{Key: "collMod", Value: "v2"}, {Key: "validator", Value: bson.D{}}}), 72, "validator on a view")
}

func TestLookupAndUnionWithFromAView(t *testing.T) {
	_, c := startServer(t)
	ctx := tctx(t, 10*opTimeout)
	db := c.Database("views")
	if _, err := db.Collection("items").InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}, {Key: "k", Value: "a"}, {Key: "ok", Value: true}},
		bson.D{{Key: "_id", Value: 2}, {Key: "k", Value: "a"}, {Key: "ok", Value: false}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("keys").InsertOne(ctx, bson.D{{Key: "_id", Value: "a"}}); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateView(ctx, "good", "items", mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "ok", Value: true}}}}}); err != nil {
		t.Fatal(err)
	}
	cur, err := db.Collection("keys").Aggregate(ctx, mongo.Pipeline{
		{{Key: "$lookup", Value: bson.D{{Key: "from", Value: "good"}, {Key: "localField", Value: "_id"}, {Key: "foreignField", Value: "k"}, {Key: "as", Value: "hits"}}}},
		{{Key: "$unionWith", Value: "good"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []bson.M
	if err := cur.All(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(got[0]["hits"].(bson.A)) != 1 || got[1]["_id"] != int32(1) {
		t.Errorf("$lookup/$unionWith from a view = %v", got)
	}
}
