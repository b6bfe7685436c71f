package changestream

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/tests/harness"
)

// TestChangeStreamRouter: through a router, a stream on an unsharded
// collection is its primary shard's (events, resume, invalidate); a
// stream on a sharded collection, a database or the cluster opens (the
// router merges the shards' streams: tests/sharding/changestream_test.go).
func TestChangeStreamRouter(t *testing.T) {
	cl := harness.OneShardCluster(t, "cs")
	ctx := ctxT(t)

	coll := cl.Database("csr").Collection("c")
	cs := watch(t, coll, nil)
	for i := 1; i <= 3; i++ {
		_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}})
		must(t, err)
	}
	evs := expectOps(t, cs, "insert", "insert", "insert")
	resumed := watch(t, coll, nil, options.ChangeStream().SetResumeAfter(evs[0]["_id"]))
	if ev := next(t, resumed); ev["documentKey"].(bson.M)["_id"] != int32(2) {
		t.Errorf("resumeAfter through the router: %v, want _id 2", ev)
	}
	if cs.ResumeToken() == nil {
		t.Error("no postBatchResumeToken through the router")
	}
	must(t, coll.Drop(ctx))
	expectOps(t, cs, "drop", "invalidate")

	must(t, cl.Database("admin").RunCommand(ctx, bson.D{{Key: "enableSharding", Value: "csr"}}).Err())
	must(t, cl.Database("admin").RunCommand(ctx, bson.D{{Key: "shardCollection", Value: "csr.s"},
		{Key: "key", Value: bson.D{{Key: "k", Value: 1}}}}).Err())
	for name, open := range map[string]func() error{
		"sharded collection": func() error { _, err := cl.Database("csr").Collection("s").Watch(ctx, mongo.Pipeline{}); return err },
		"database":           func() error { _, err := cl.Database("csr").Watch(ctx, mongo.Pipeline{}); return err },
		"cluster":            func() error { _, err := cl.Watch(ctx, mongo.Pipeline{}); return err },
	} {
		if err := open(); err != nil {
			t.Errorf("%s stream through the router: %v", name, err)
		}
	}
}
