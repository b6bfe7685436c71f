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
			// mapReduce: as an aggregate split over the shards, or run
			// by the primary shard.
			var inline struct {
				Results []struct {
					ID    float64 `bson:"_id"`
					Value float64 `bson:"value"`
				}
			}
			err := db.RunCommand(tctx(t), bson.D{{Key: "mapReduce", Value: name}, {Key: "map", Value: "function() { emit(this.x % 2, this.x); }"},
				{Key: "reduce", Value: "function(k, vs) { return Array.sum(vs); }"}, {Key: "out", Value: bson.D{{Key: "inline", Value: 1}}}}).Decode(&inline)
			// Even x sum to 90, odd to 100.
			if err != nil || len(inline.Results) != 2 || inline.Results[0].Value != 90 || inline.Results[1].Value != 100 {
				t.Errorf("mapReduce inline: %+v, %v", inline, err)
			}
			var res bson.D
			err = db.RunCommand(tctx(t), bson.D{{Key: "mapReduce", Value: name}, {Key: "map", Value: "function() { emit(this.x % 3, 1); }"},
				{Key: "reduce", Value: "function(k, vs) { return Array.sum(vs); }"}, {Key: "out", Value: name + "_out"}}).Decode(&res)
			n, err2 := db.Collection(name+"_out").CountDocuments(tctx(t), bson.D{})
			if err != nil || err2 != nil || n != 3 {
				t.Errorf("mapReduce out: %d documents (%#v, %v; reply %v)", n, err, err2, res)
			}
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
