package js

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/tests/harness"
)

// TestRouter: through a router, $where, $function and $accumulator work
// on an unsharded collection (forwarded) and on one sharded over two
// shards ($where runs on each shard; $accumulator is split: the shards
// keep states, the router merges and finalizes).
func TestRouter(t *testing.T) {
	sets := harness.StartSets(t, []cluster.Spec{
		{Name: "cfg", ExtraArgs: []string{"--configsvr"}},
		{Name: "sh0", ExtraArgs: []string{"--shardsvr"}},
		{Name: "sh1", ExtraArgs: []string{"--shardsvr"}},
	})
	r := harness.StartRouter(t, "cfg/"+sets[0].Members()[0].Host)
	cl := connect(t, r.URI())
	admin := cl.Database("admin")
	for _, s := range sets[1:] {
		if err := admin.RunCommand(tctx(t), bson.D{{Key: "addShard", Value: harness.Seed(s)}}).Err(); err != nil {
			t.Fatalf("addShard: %v", err)
		}
	}
	db := cl.Database("jsr")
	if err := admin.RunCommand(tctx(t), bson.D{{Key: "shardCollection", Value: "jsr.sharded"}, {Key: "key", Value: bson.D{{Key: "_id", Value: "hashed"}}}}).Err(); err != nil {
		t.Fatalf("shardCollection: %v", err)
	}
	for _, name := range []string{"unsharded", "sharded"} {
		t.Run(name, func(t *testing.T) {
			coll := db.Collection(name) // no drop: that would unshard it
			insertX(t, coll, 20)
			if got := ids(t, coll, bson.D{{Key: "$where", Value: "this.x >= 4"}}); len(got) != 16 {
				t.Errorf("$where: %v, want 16 documents", got)
			}
			checkScriptAggregations(t, coll)
		})
	}
	// The sharded collection's documents are on both shards.
	for _, s := range sets[1:] {
		n, err := harness.FirstMemberClient(t, s).Database("jsr").Collection("sharded").CountDocuments(tctx(t), bson.D{})
		if err != nil || n == 0 {
			t.Errorf("%s holds %d documents (%v); want some on each shard", s.Spec().Name, n, err)
		}
	}
}
