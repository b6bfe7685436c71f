package sharding

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// csNext waits up to d for the stream's next event.
func csNext(t *testing.T, cs *mongo.ChangeStream, d time.Duration) bson.M {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cs.TryNext(ctxT(t)) {
			var ev bson.M
			must(t, cs.Decode(&ev), "decode event")
			return ev
		}
		must(t, cs.Err(), "change stream")
	}
	t.Fatalf("no change event within %v", d)
	return nil
}

// csDocKey is an event's documentKey field f.
func csDocKey(ev bson.M, f string) any {
	switch dk := ev["documentKey"].(type) {
	case bson.M:
		return dk[f]
	case bson.D:
		for _, e := range dk {
			if e.Key == f {
				return e.Value
			}
		}
	}
	return nil
}

// csWatchSetup shards cs.c on {x: 1} over sh0 and sh1: [MinKey, 100) on
// one shard, [100, MaxKey) on the other.
func csWatchSetup(t *testing.T) (*topo, *mongo.Client) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "cs.c"}, {Key: "key", Value: bson.D{{Key: "x", Value: 1}}}}).Err(), "shardCollection")
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "split", Value: "cs.c"}, {Key: "middle", Value: bson.D{{Key: "x", Value: int32(100)}}}}).Err(), "split")
	from := chunkOwner(t, tp, "cs.c", 100)
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "moveChunk", Value: "cs.c"}, {Key: "find", Value: bson.D{{Key: "x", Value: int32(100)}}},
		{Key: "to", Value: otherShard(from)}, {Key: "_waitForDelete", Value: true}}).Err(), "moveChunk")
	return tp, cl
}
