package sharding

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestRouterIndexOptions: through the router, collMod of index options
// answers as a shard does for an unsharded collection (hidden_old/_new)
// and hides an index on every shard of a sharded one; a wildcard index on
// a sharded collection answers queries as a collection scan does.
func TestRouterIndexOptions(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	ctx := ctxT(t)
	db := cl.Database("ixo")
	_, err := db.Collection("u").Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "a", Value: 1}}, Options: options.Index().SetHidden(true)})
	must(t, err, "create hidden index")
	var res bson.M
	must(t, db.RunCommand(ctx, bson.D{{Key: "collMod", Value: "u"}, {Key: "index", Value: bson.D{{Key: "name", Value: "a_1"}, {Key: "hidden", Value: false}}}}).Decode(&res), "collMod u")
	if res["hidden_old"] != true || res["hidden_new"] != false {
		t.Fatalf("collMod through the router = %v, want hidden_old true, hidden_new false", res)
	}

	must(t, admin.RunCommand(ctx, bson.D{{Key: "shardCollection", Value: "ixo.s"}, {Key: "key", Value: bson.D{{Key: "k", Value: "hashed"}}}}).Err(), "shard ixo.s")
	coll := db.Collection("s")
	_, err = coll.Indexes().CreateMany(ctx, []mongo.IndexModel{{Keys: bson.D{{Key: "a", Value: 1}}}, {Keys: bson.D{{Key: "$**", Value: 1}}}})
	must(t, err, "create indexes on ixo.s")
	var docs []any
	for i := int32(0); i < 60; i++ {
		docs = append(docs, bson.D{{Key: "k", Value: i}, {Key: "a", Value: i % 6}, {Key: "w", Value: bson.D{{Key: "x", Value: i % 5}}}})
	}
	_, err = coll.InsertMany(ctx, docs)
	must(t, err, "insert")
	must(t, db.RunCommand(ctx, bson.D{{Key: "collMod", Value: "s"}, {Key: "index", Value: bson.D{{Key: "name", Value: "a_1"}, {Key: "hidden", Value: true}}}}).Err(), "collMod s")
	for _, sh := range []string{"sh0", "sh1"} {
		cur, err := tp.shardClient(t, sh).Database("ixo").Collection("s").Indexes().List(ctx)
		must(t, err, "listIndexes on %s", sh)
		var specs []bson.M
		must(t, cur.All(ctx, &specs), "decode")
		hidden := false
		for _, s := range specs {
			if s["name"] == "a_1" && s["hidden"] == true {
				hidden = true
			}
		}
		if !hidden {
			t.Errorf("a_1 on %s is not hidden: %v", sh, specs)
		}
	}
	n, err := coll.CountDocuments(ctx, bson.D{{Key: "w.x", Value: 3}})
	if err != nil || n != 12 {
		t.Fatalf("count {w.x: 3} through the wildcard index = %d, %v; want 12", n, err)
	}
}
