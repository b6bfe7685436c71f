package integration

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// priceSchema is the validator the validation tests share.
var priceSchema = bson.D{{Key: "$jsonSchema", Value: bson.D{
	{Key: "bsonType", Value: "object"},
	{Key: "required", Value: bson.A{"name", "price"}},
	{Key: "properties", Value: bson.D{
		{Key: "name", Value: bson.D{{Key: "bsonType", Value: "string"}}},
		{Key: "price", Value: bson.D{{Key: "bsonType", Value: "number"}, {Key: "minimum", Value: 0}, {Key: "description", Value: "price >= 0"}}},
	}},
}}}

// writeErrInfo returns the errInfo of err's first write error.
func writeErrInfo(t *testing.T, err error) bson.Raw {
	t.Helper()
	var we mongo.WriteException
	if !errors.As(err, &we) || len(we.WriteErrors) == 0 {
		t.Fatalf("want a write error, got %v", err)
	}
	if we.WriteErrors[0].Code != 121 {
		t.Fatalf("code = %d (%s), want 121", we.WriteErrors[0].Code, we.WriteErrors[0].Message)
	}
	return we.WriteErrors[0].Details
}

func TestValidatorJSONSchemaWrites(t *testing.T) {
	_, c := startServer(t)
	ctx := tctx(t, 30*opTimeout)
	db := c.Database("val")
	if err := db.CreateCollection(ctx, "items", options.CreateCollection().SetValidator(priceSchema)); err != nil {
		t.Fatalf("create: %v", err)
	}
	coll := db.Collection("items")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "name", Value: "a"}, {Key: "price", Value: 2.5}}); err != nil {
		t.Fatalf("valid insert: %v", err)
	}
	_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 2}, {Key: "price", Value: -1}})
	info := writeErrInfo(t, err)
	if id := info.Lookup("failingDocumentId"); id.AsInt64() != 2 {
		t.Errorf("failingDocumentId = %v", id)
	}
	if op := info.Lookup("details", "operatorName").StringValue(); op != "$jsonSchema" {
		t.Errorf("details.operatorName = %q; errInfo %v", op, info)
	}
	rules, _ := info.Lookup("details", "schemaRulesNotSatisfied").Array().Values()
	if len(rules) != 2 {
		t.Fatalf("schemaRulesNotSatisfied = %v", rules)
	}
	if miss := rules[0].Document().Lookup("missingProperties").Array().Index(0).StringValue(); miss != "name" {
		t.Errorf("missingProperties = %v", rules[0])
	}
	// update, replace, upsert and findAndModify are validated too.
	_, err = coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "price", Value: "free"}}}})
	writeErrInfo(t, err)
	_, err = coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "name", Value: "a"}})
	writeErrInfo(t, err)
	_, err = coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 9}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}, options.UpdateOne().SetUpsert(true))
	writeErrInfo(t, err)
	err = coll.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$unset", Value: bson.D{{Key: "name", Value: ""}}}}).Err()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 121 {
		t.Fatalf("findAndModify: %v", err)
	}
	if ce.Raw.Lookup("errInfo", "details", "operatorName").StringValue() != "$jsonSchema" {
		t.Errorf("findAndModify errInfo missing: %v", ce.Raw)
	}
	// bypassDocumentValidation lets the write through.
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 3}}, options.InsertOne().SetBypassDocumentValidation(true)); err != nil {
		t.Fatalf("bypass insert: %v", err)
	}
	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "price", Value: "x"}}}},
		options.UpdateOne().SetBypassDocumentValidation(true)); err != nil {
		t.Fatalf("bypass update: %v", err)
	}
	if n, _ := coll.CountDocuments(ctx, bson.D{}); n != 2 {
		t.Errorf("count = %d, want 2", n)
	}
	// $jsonSchema as a query operator finds the documents that fail.
	n, err := coll.CountDocuments(ctx, bson.D{{Key: "$nor", Value: bson.A{priceSchema}}})
	if err != nil || n != 2 {
		t.Errorf("$nor [$jsonSchema] count = %d, %v; want 2", n, err)
	}
}

func TestValidatorLevelsActionsCollMod(t *testing.T) {
	s, c := startServer(t)
	ctx := tctx(t, 30*opTimeout)
	db := c.Database("val")
	coll := db.Collection("mod")
	if _, err := coll.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}}, bson.D{{Key: "_id", Value: 2}, {Key: "a", Value: "bad"}}}); err != nil {
		t.Fatal(err)
	}
	run := func(cmd bson.D) error { return db.RunCommand(ctx, cmd).Err() }
	if err := run(bson.D{{Key: "collMod", Value: "mod"}, {Key: "validator", Value: bson.D{{Key: "a", Value: bson.D{{Key: "$type", Value: "int"}}}}},
		{Key: "validationLevel", Value: "moderate"}}); err != nil {
		t.Fatalf("collMod: %v", err)
	}
	// moderate: an already invalid document may stay invalid; a valid one may not become invalid.
	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "$set", Value: bson.D{{Key: "b", Value: 1}}}}); err != nil {
		t.Errorf("moderate update of an invalid document: %v", err)
	}
	_, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: "s"}}}})
	info := writeErrInfo(t, err)
	if op := info.Lookup("details", "operatorName").StringValue(); op != "$type" {
		t.Errorf("details = %v", info)
	}
	if err := run(bson.D{{Key: "collMod", Value: "mod"}, {Key: "validationAction", Value: "warn"}}); err != nil {
		t.Fatalf("collMod warn: %v", err)
	}
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 3}, {Key: "a", Value: "s"}}); err != nil {
		t.Errorf("warn insert: %v", err)
	}
	for _, bad := range []struct {
		cmd  bson.D
		code int32
	}{
		{bson.D{{Key: "collMod", Value: "mod"}, {Key: "validationLevel", Value: "loose"}}, 2},
		{bson.D{{Key: "collMod", Value: "mod"}, {Key: "validationAction", Value: 1}}, 14},
		{bson.D{{Key: "collMod", Value: "mod"}, {Key: "validator", Value: bson.D{{Key: "$jsonSchema", Value: bson.D{{Key: "bogus", Value: 1}}}}}}, 9},
		{bson.D{{Key: "collMod", Value: "nope"}, {Key: "validator", Value: bson.D{}}}, 26},
		{bson.D{{Key: "create", Value: "bad"}, {Key: "validator", Value: 5}}, 14},
	} {
		wantCode(t, run(bad.cmd), bad.code, bad.cmd[0].Key+" "+bad.cmd[1].Key)
	}
	// listCollections shows the options; they survive a restart.
	check := func(c *mongo.Client, when string) {
		specs, err := c.Database("val").ListCollectionSpecifications(ctx, bson.D{{Key: "name", Value: "mod"}})
		if err != nil || len(specs) != 1 {
			t.Fatalf("%s: listCollections: %v %v", when, specs, err)
		}
		o := specs[0].Options
		if o.Lookup("validationLevel").StringValue() != "moderate" || o.Lookup("validationAction").StringValue() != "warn" ||
			o.Lookup("validator", "a").Type != bson.TypeEmbeddedDocument {
			t.Errorf("%s: options = %v", when, o)
		}
	}
	check(c, "before restart")
	s.Restart(t)
	c2 := s.Client(t)
	check(c2, "after restart")
	if err := c2.Database("val").RunCommand(ctx, bson.D{{Key: "collMod", Value: "mod"}, {Key: "validationAction", Value: "error"}}).Err(); err != nil {
		t.Fatal(err)
	}
	_, err = c2.Database("val").Collection("mod").InsertOne(ctx, bson.D{{Key: "a", Value: "s"}})
	writeErrInfo(t, err)
}

// TestOutKeepsTargetOptions: $out replaces the documents of its target but
// keeps the target's options (a capped target stays capped, a validator
// still applies) and refuses a view.
func TestOutKeepsTargetOptions(t *testing.T) {
	_, c := startServer(t)
	ctx := tctx(t, 10*opTimeout)
	db := c.Database("out")
	var docs []any
	for i := int32(1); i <= 5; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "a", Value: i}})
	}
	src := db.Collection("src")
	if _, err := src.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateCollection(ctx, "capped", options.CreateCollection().SetCapped(true).SetSizeInBytes(4096).SetMaxDocuments(2)); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Aggregate(ctx, mongo.Pipeline{{{Key: "$out", Value: "capped"}}}); err != nil {
		t.Fatalf("$out into a capped collection: %v", err)
	}
	if n, _ := db.Collection("capped").CountDocuments(ctx, bson.D{}); n != 2 {
		t.Errorf("capped $out target holds %d documents, want 2", n)
	}
	if err := db.CreateCollection(ctx, "strict", options.CreateCollection().SetValidator(bson.D{{Key: "a", Value: bson.D{{Key: "$lt", Value: 3}}}})); err != nil {
		t.Fatal(err)
	}
	_, err := src.Aggregate(ctx, mongo.Pipeline{{{Key: "$out", Value: "strict"}}})
	wantCode(t, err, 121, "$out of documents the target's validator refuses")
	if err := db.CreateView(ctx, "v", "src", mongo.Pipeline{}); err != nil {
		t.Fatal(err)
	}
	_, err = src.Aggregate(ctx, mongo.Pipeline{{{Key: "$out", Value: "v"}}})
	wantCode(t, err, 166, "$out into a view")
}

// TestAggregateBypassesValidation: $merge and $out honour aggregate's
// bypassDocumentValidation.
func TestAggregateBypassesValidation(t *testing.T) {
	_, c := startServer(t)
	ctx := tctx(t, 10*opTimeout)
	db := c.Database("outbypass")
	if _, err := db.Collection("src").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: "text"}}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"m", "o"} {
		if err := db.CreateCollection(ctx, name, options.CreateCollection().SetValidator(bson.D{{Key: "a", Value: bson.D{{Key: "$type", Value: "int"}}}})); err != nil {
			t.Fatal(err)
		}
	}
	merge := mongo.Pipeline{{{Key: "$merge", Value: bson.D{{Key: "into", Value: "m"}}}}}
	_, err := db.Collection("src").Aggregate(ctx, merge)
	wantCode(t, err, 121, "$merge without bypass")
	if _, err := db.Collection("src").Aggregate(ctx, merge, options.Aggregate().SetBypassDocumentValidation(true)); err != nil {
		t.Errorf("$merge with bypass: %v", err)
	}
	out := mongo.Pipeline{{{Key: "$out", Value: "o"}}}
	if _, err := db.Collection("src").Aggregate(ctx, out, options.Aggregate().SetBypassDocumentValidation(true)); err != nil {
		t.Errorf("$out with bypass: %v", err)
	}
	for _, name := range []string{"m", "o"} {
		if n, _ := db.Collection(name).CountDocuments(ctx, bson.D{}); n != 1 {
			t.Errorf("%s holds %d documents, want 1", name, n)
		}
	}
}
