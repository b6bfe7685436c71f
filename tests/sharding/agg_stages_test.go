package sharding

import (
	"math/rand"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// stagePipelines use the #14 stages and accumulators; each sorts its
// output totally (or yields one document) so that results compare in
// order.
var stagePipelines = []string{
	`[{"$group": {"_id": "$g", "t": {"$topN": {"n": 3, "output": "$_id", "sortBy": {"y": -1, "_id": 1}}},
		"b": {"$bottom": {"output": "$_id", "sortBy": {"y": -1, "_id": 1}}}, "mx": {"$maxN": {"n": 2, "input": "$x"}},
		"f": {"$firstN": {"n": 2, "input": "$_id"}}, "m": {"$median": {"input": "$y", "method": "approximate"}},
		"p": {"$percentile": {"input": "$y", "p": [0.25, 0.9], "method": "approximate"}}}}, {"$sort": {"_id": 1}},
		{"$project": {"t": 1, "b": 1, "mx": 1, "m": 1, "p": 1}}]`,
	// Split: the shards keep n values each (a literal n).
	`[{"$group": {"_id": "$g", "mx": {"$maxN": {"n": 3, "input": "$x"}}, "mn": {"$minN": {"n": 2, "input": "$y"}}}}, {"$sort": {"_id": 1}}]`,
	// Not split: n from the group's first document, here the group key.
	`[{"$group": {"_id": "$g", "mn": {"$minN": {"n": {"$cond": [{"$eq": ["$g", 1]}, 1, 2]}, "input": "$y"}}}}, {"$sort": {"_id": 1}}]`,
	`[{"$setWindowFields": {"partitionBy": "$g", "sortBy": {"_id": 1}, "output": {
		"c": {"$sum": "$y", "window": {"documents": ["unbounded", "current"]}}, "r": {"$rank": {}},
		"mv": {"$avg": "$y", "window": {"documents": [-2, 2]}}, "sh": {"$shift": {"output": "$_id", "by": -1, "default": -1}},
		"rg": {"$count": {}, "window": {"range": [-10, 10]}}}}}, {"$sort": {"_id": 1}}]`,
	`[{"$bucketAuto": {"groupBy": "$y", "buckets": 5, "output": {"n": {"$sum": 1}, "s": {"$sum": "$k"}}}}]`,
	`[{"$match": {"_id": {"$lt": 40}}}, {"$graphLookup": {"from": "u", "startWith": "$k", "connectFromField": "k", "connectToField": "_id", "as": "h", "maxDepth": 3}},
		{"$project": {"h": {"$sortArray": {"input": "$h._id", "sortBy": 1}}}}, {"$sort": {"_id": 1}}]`,
	`[{"$redact": {"$cond": [{"$gt": ["$x", 50]}, "$$PRUNE", "$$KEEP"]}}, {"$sort": {"_id": 1}}]`,
	`[{"$match": {"_id": {"$lt": 60}}}, {"$fill": {"sortBy": {"_id": 1}, "output": {"x": {"method": "locf"}}}}, {"$sort": {"_id": 1}}]`,
	`[{"$match": {"_id": {"$lt": 60}}}, {"$densify": {"field": "k", "partitionByFields": ["g"], "range": {"step": 7, "bounds": "full"}}},
		{"$project": {"_id": 0, "g": 1, "k": 1}}, {"$sort": {"g": 1, "k": 1}}]`,
}

// TestShardedAggregateStages: the new stages and accumulators give the
// same results on a sharded collection (run by the merger) as on an
// unsharded copy through the router (forwarded to its shard unchanged).
func TestShardedAggregateStages(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "ws.s"}, {Key: "key", Value: bson.D{{Key: "k", Value: "hashed"}}}}).Err(), "shard ws.s")
	db := cl.Database("ws")
	s, u := db.Collection("s"), db.Collection("u")
	docs := aggDocs(rand.New(rand.NewSource(14)), 300)
	for _, c := range []*mongo.Collection{s, u} {
		_, err := c.InsertMany(ctxT(t), docs)
		must(t, err, "insert into %s", c.Name())
	}
	for _, p := range stagePipelines {
		comparePipeline(t, s, u, mustPipe(t, p), true, nil)
	}
	// Through the router on the unsharded copy, a documented result.
	out, err := aggregateAll(t, u, mustPipe(t, `[{"$match": {"_id": {"$in": [1, 2, 3]}}}, {"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"n": {"$documentNumber": {}}}}}, {"$project": {"n": 1}}]`), nil)
	must(t, err, "window through the router")
	if len(out) != 3 || out[2][1].Value != int32(3) {
		t.Fatalf("$documentNumber through the router: %v", out)
	}
	routerCurrentOp(t, cl)
	// $indexStats on the sharded collection: each shard's _id_ and k_hashed.
	ix, err := aggregateAll(t, s, mustPipe(t, `[{"$indexStats": {}}, {"$group": {"_id": "$name", "n": {"$sum": 1}}}, {"$sort": {"_id": 1}}]`), nil)
	must(t, err, "$indexStats through the router")
	if len(ix) != 2 || ix[0][1].Value != int32(2) || ix[1][1].Value != int32(2) {
		t.Fatalf("$indexStats on a collection sharded over two shards: %v", ix)
	}
}

// routerCurrentOp: currentOp and $currentOp through the router list each
// shard's operations (the forwarded currentOp itself among them) with
// shard and "<shard>:<opid>".
func routerCurrentOp(t *testing.T, cl *mongo.Client) {
	var reply struct{ Inprog []bson.M }
	must(t, cl.Database("admin").RunCommand(ctxT(t), bson.D{{Key: "currentOp", Value: 1},
		{Key: "command.currentOp", Value: bson.D{{Key: "$exists", Value: true}}}}).Decode(&reply), "currentOp through the router")
	shards := map[any]bool{}
	for _, op := range reply.Inprog {
		id, _ := op["opid"].(string)
		if sh, _ := op["shard"].(string); sh == "" || len(id) <= len(sh) || id[:len(sh)+1] != sh+":" {
			t.Fatalf("router currentOp: op without shard or prefixed opid: %v", op)
		}
		shards[op["shard"]] = true
	}
	if len(shards) != 2 {
		t.Fatalf("router currentOp: want the currentOp of both shards, got %v", reply.Inprog)
	}
	cur, err := cl.Database("admin").Aggregate(ctxT(t), mongo.Pipeline{{{Key: "$currentOp", Value: bson.D{}}},
		{{Key: "$match", Value: bson.D{{Key: "command.currentOp", Value: bson.D{{Key: "$exists", Value: true}}}}}}, {{Key: "$count", Value: "n"}}})
	must(t, err, "$currentOp through the router")
	var n []bson.M
	must(t, cur.All(ctxT(t), &n), "read $currentOp")
	if len(n) != 1 || n[0]["n"] != int32(2) {
		t.Fatalf("$currentOp through the router: %v", n)
	}
	_, err = cl.Database("ws").Aggregate(ctxT(t), mongo.Pipeline{{{Key: "$currentOp", Value: bson.D{}}}})
	if code := errCode(err); code != 73 {
		t.Fatalf("$currentOp outside admin through the router: %v", err)
	}
}
