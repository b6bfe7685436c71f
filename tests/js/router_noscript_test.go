package js

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/tests/harness"
)

// TestRouterNoScripting: a router started with --noscripting refuses the
// JavaScript it would run itself (merging a split $accumulator: 31264)
// and reports it in getCmdLineOpts; $where still runs on the shards.
func TestRouterNoScripting(t *testing.T) {
	sets := harness.StartSets(t, []cluster.Spec{
		{Name: "cfg", ExtraArgs: []string{"--configsvr"}},
		{Name: "sh0", ExtraArgs: []string{"--shardsvr"}},
		{Name: "sh1", ExtraArgs: []string{"--shardsvr"}},
	})
	r := harness.StartRouter(t, "cfg/"+sets[0].Members()[0].Host, "--noscripting")
	cl := connect(t, r.URI())
	admin := cl.Database("admin")
	for _, s := range sets[1:] {
		if err := admin.RunCommand(tctx(t), bson.D{{Key: "addShard", Value: harness.Seed(s)}}).Err(); err != nil {
			t.Fatalf("addShard: %v", err)
		}
	}
	if err := admin.RunCommand(tctx(t), bson.D{{Key: "shardCollection", Value: "jsn.s"}, {Key: "key", Value: bson.D{{Key: "_id", Value: "hashed"}}}}).Err(); err != nil {
		t.Fatalf("shardCollection: %v", err)
	}
	coll := cl.Database("jsn").Collection("s")
	insertX(t, coll, 20)
	if got := ids(t, coll, bson.D{{Key: "$where", Value: "this.x < 5"}}); len(got) != 5 {
		t.Errorf("$where through a --noscripting router: %v, want 5 documents", got)
	}
	_, err := coll.Aggregate(tctx(t), mongo.Pipeline{{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: "avg", Value: avgAccumulator}}}}})
	wantCode(t, "split $accumulator on a --noscripting router", err, 31264, "javascript engine")
	var opts struct {
		Parsed struct {
			Security struct {
				JavascriptEnabled *bool `bson:"javascriptEnabled"`
			} `bson:"security"`
		} `bson:"parsed"`
	}
	err = admin.RunCommand(tctx(t), bson.D{{Key: "getCmdLineOpts", Value: 1}}).Decode(&opts)
	if js := opts.Parsed.Security.JavascriptEnabled; err != nil || js == nil || *js {
		t.Errorf("router getCmdLineOpts: parsed.security.javascriptEnabled = %v (%v), want false", js, err)
	}
}
