package sharding

import (
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestUnshardedCollectionsWithRulesThroughRouter: validators, views and
// capped collections (with a tailable cursor) on unsharded collections
// work through the router, which forwards them to the primary shard.
func TestUnshardedCollectionsWithRulesThroughRouter(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	ctx := ctxT(t)
	db := cl.Database("rules")
	validator := bson.D{{Key: "$jsonSchema", Value: bson.D{{Key: "required", Value: bson.A{"name"}}}}}
	must(t, db.CreateCollection(ctx, "v", options.CreateCollection().SetValidator(validator)), "create with validator")
	_, err := db.Collection("v").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}})
	var we mongo.WriteException
	if !errors.As(err, &we) || len(we.WriteErrors) != 1 || we.WriteErrors[0].Code != 121 ||
		we.WriteErrors[0].Details.Lookup("details", "operatorName").StringValue() != "$jsonSchema" {
		t.Fatalf("invalid insert through the router: %v", err)
	}
	must(t, db.RunCommand(ctx, bson.D{{Key: "collMod", Value: "v"}, {Key: "validationAction", Value: "warn"}}).Err(), "collMod")
	_, err = db.Collection("v").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}})
	must(t, err, "insert after validationAction warn")

	src := db.Collection("src")
	_, err = src.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}}, bson.D{{Key: "_id", Value: 2}, {Key: "a", Value: 2}}})
	must(t, err, "insert src")
	must(t, db.CreateView(ctx, "view", "src", mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "a", Value: 2}}}}}), "createView")
	if n, err := db.Collection("view").CountDocuments(ctx, bson.D{}); err != nil || n != 1 {
		t.Errorf("count on the view = %d, %v", n, err)
	}
	_, err = db.Collection("view").InsertOne(ctx, bson.D{})
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 166 {
		t.Errorf("insert into the view: %v", err)
	}

	must(t, db.CreateCollection(ctx, "capped", options.CreateCollection().SetCapped(true).SetSizeInBytes(4096).SetMaxDocuments(2)), "create capped")
	capped := db.Collection("capped")
	for i := int32(1); i <= 3; i++ {
		_, err := capped.InsertOne(ctx, bson.D{{Key: "_id", Value: i}})
		must(t, err, "insert capped %d", i)
	}
	cur, err := capped.Find(ctx, bson.D{}, options.Find().SetCursorType(options.TailableAwait).SetMaxAwaitTime(100*time.Millisecond))
	must(t, err, "tailable find")
	defer cur.Close(ctx)
	var got []int32
	_, err = capped.InsertOne(ctx, bson.D{{Key: "_id", Value: 9}})
	must(t, err, "insert while tailing")
	for deadline := time.Now().Add(5 * time.Second); len(got) < 3 && time.Now().Before(deadline); {
		if cur.TryNext(ctx) {
			got = append(got, cur.Current.Lookup("_id").Int32())
		} else if cur.Err() != nil || cur.ID() == 0 {
			t.Fatalf("tailable cursor ended: %v", cur.Err())
		}
	}
	if len(got) != 3 || got[0] != 2 || got[1] != 3 || got[2] != 9 {
		t.Errorf("tailable cursor through the router returned %v, want [2 3 9]", got)
	}
	err = admin.RunCommand(ctx, bson.D{{Key: "shardCollection", Value: "rules.capped"}, {Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}}).Err()
	if !errors.As(err, &ce) || ce.Code != 72 {
		t.Errorf("sharding a capped collection: %v, want InvalidOptions (72)", err)
	}
}

// TestShardedCollModValidator: collMod through the router sets a validator
// on every shard of a sharded collection, so writes routed to either shard
// are validated.
func TestShardedCollModValidator(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	ctx := ctxT(t)
	must(t, admin.RunCommand(ctx, bson.D{{Key: "shardCollection", Value: "rules.s"}, {Key: "key", Value: bson.D{{Key: "k", Value: "hashed"}}}}).Err(), "shard rules.s")
	coll := cl.Database("rules").Collection("s")
	var docs []any
	for i := int32(0); i < 40; i++ {
		docs = append(docs, bson.D{{Key: "k", Value: i}, {Key: "n", Value: i}})
	}
	_, err := coll.InsertMany(ctx, docs)
	must(t, err, "insert")
	for _, sh := range []string{"sh0", "sh1"} {
		if n, err := tp.shardClient(t, sh).Database("rules").Collection("s").CountDocuments(ctx, bson.D{}); err != nil || n == 0 {
			t.Fatalf("rules.s on %s: %d documents, %v", sh, n, err)
		}
	}
	validator := bson.D{{Key: "n", Value: bson.D{{Key: "$type", Value: "int"}}}}
	must(t, cl.Database("rules").RunCommand(ctx, bson.D{{Key: "collMod", Value: "s"}, {Key: "validator", Value: validator}}).Err(), "collMod")
	refused := 0
	for i := int32(100); i < 120; i++ {
		_, err := coll.InsertOne(ctx, bson.D{{Key: "k", Value: i}, {Key: "n", Value: "text"}})
		var we mongo.WriteException
		if errors.As(err, &we) && len(we.WriteErrors) == 1 && we.WriteErrors[0].Code == 121 {
			refused++
		}
	}
	if refused != 20 {
		t.Errorf("%d of 20 invalid inserts refused, want all (both shards validate)", refused)
	}
}

// TestMigrationRecipientKeepsOptions: a shard that receives the first
// chunk of a collection creates it with the donor's options, so a
// validator keeps applying to the moved range.
func TestMigrationRecipientKeepsOptions(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	ctx := ctxT(t)
	validator := bson.D{{Key: "n", Value: bson.D{{Key: "$type", Value: "int"}}}}
	must(t, cl.Database("mig").CreateCollection(ctx, "c", options.CreateCollection().SetValidator(validator)), "create")
	must(t, admin.RunCommand(ctx, bson.D{{Key: "shardCollection", Value: "mig.c"}, {Key: "key", Value: bson.D{{Key: "x", Value: 1}}}}).Err(), "shardCollection")
	must(t, admin.RunCommand(ctx, bson.D{{Key: "split", Value: "mig.c"}, {Key: "middle", Value: bson.D{{Key: "x", Value: 0}}}}).Err(), "split")
	var dbDoc struct {
		Primary string `bson:"primary"`
	}
	must(t, cl.Database("config").Collection("databases").FindOne(ctx, bson.D{{Key: "_id", Value: "mig"}}).Decode(&dbDoc), "config.databases")
	other := map[string]string{"sh0": "sh1", "sh1": "sh0"}[dbDoc.Primary]
	must(t, admin.RunCommand(ctx, bson.D{{Key: "moveChunk", Value: "mig.c"}, {Key: "find", Value: bson.D{{Key: "x", Value: 5}}}, {Key: "to", Value: other}}).Err(), "moveChunk to %s", other)
	_, err := cl.Database("mig").Collection("c").InsertOne(ctx, bson.D{{Key: "x", Value: 5}, {Key: "n", Value: "text"}})
	var we mongo.WriteException
	if !errors.As(err, &we) || len(we.WriteErrors) != 1 || we.WriteErrors[0].Code != 121 {
		t.Fatalf("invalid insert into the moved range on %s: %v", other, err)
	}
	if n, err := tp.shardClient(t, other).Database("mig").Collection("c").CountDocuments(ctx, bson.D{}); err != nil || n != 0 {
		t.Errorf("%s holds %d documents (%v)", other, n, err)
	}
}
