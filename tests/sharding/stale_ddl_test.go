package sharding

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/tests/harness"
)

// TestStaleRouterDDLReachesEveryShard: a router that last saw a collection
// unsharded (it dropped it) still builds an index on every shard after
// another router sharded the collection: index DDL carries no shard
// version a shard could refuse, so the router re-reads the routing first.
// (Found by tests/compat/test_geo.py through two routers: one shard had
// no 2dsphere index and $near failed.)
func TestStaleRouterDDLReachesEveryShard(t *testing.T) {
	tp := startTopo(t)
	r2 := harness.StartRouter(t, "cfg/"+tp.cfg.Members()[0].Host)
	ctx := ctxT(t)
	a, _ := connectRouter(t, tp)
	b, err := mongo.Connect(options.Client().ApplyURI(r2.URI()))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Disconnect(ctx)
	for _, name := range []string{"sh0", "sh1"} {
		must(t, a.Database("admin").RunCommand(ctx, bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	must(t, b.Database("stale").Collection("c").Drop(ctx), "drop through the second router")
	must(t, a.Database("admin").RunCommand(ctx, bson.D{{Key: "shardCollection", Value: "stale.c"},
		{Key: "key", Value: bson.D{{Key: "_id", Value: "hashed"}}}}).Err(), "shardCollection through the first router")
	if _, err := b.Database("stale").Collection("c").Indexes().CreateOne(ctx,
		mongo.IndexModel{Keys: bson.D{{Key: "x", Value: 1}}}); err != nil {
		t.Fatalf("createIndexes through the stale router: %v", err)
	}
	for _, name := range []string{"sh0", "sh1"} {
		specs, err := tp.shardClient(t, name).Database("stale").Collection("c").Indexes().ListSpecifications(ctx)
		if err != nil {
			t.Fatalf("%s listIndexes: %v", name, err)
		}
		found := false
		for _, s := range specs {
			found = found || s.Name == "x_1"
		}
		if !found {
			t.Errorf("shard %s has no x_1 index (%d indexes): the stale router sent createIndexes to one shard only", name, len(specs))
		}
	}
}
