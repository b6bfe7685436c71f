package sharding

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// exprPipeline uses the #14 trigonometric, bitwise and miscellaneous
// operators.
const exprPipeline = `[{"$project": {
	"sin": {"$sin": "$f"}, "acos": {"$acos": {"$divide": ["$n", 20]}}, "atan2": {"$atan2": ["$n", "$f"]},
	"deg": {"$radiansToDegrees": "$f"}, "and": {"$bitAnd": ["$n", 6]}, "not": {"$bitNot": "$l"},
	"zip": {"$zip": {"inputs": ["$arr", ["a", "b"]], "useLongestLength": true}},
	"bsz": {"$bsonSize": "$$ROOT"}, "ts": {"$tsSecond": "$ts"}, "h": {"$toHashedIndexKey": "$n"}}},
	{"$sort": {"_id": 1}}]`

// TestShardedExprOperators: the new expression operators give the same
// results on a sharded collection as on an unsharded copy through the
// router, a documented value comes back, and a domain error keeps mongod's
// code on both.
func TestShardedExprOperators(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "ex.s"}, {Key: "key", Value: bson.D{{Key: "_id", Value: "hashed"}}}}).Err(), "shard ex.s")
	db := cl.Database("ex")
	s, u := db.Collection("s"), db.Collection("u")
	docs := make([]any, 40)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "f", Value: float64(i) / 7}, {Key: "n", Value: int32(i % 20)},
			{Key: "l", Value: int64(i) << 33}, {Key: "arr", Value: bson.A{i, i + 1, i + 2}[:i%4%3+1]},
			{Key: "ts", Value: bson.Timestamp{T: uint32(1700000000 + i), I: 1}}}
	}
	for _, c := range []*mongo.Collection{s, u} {
		_, err := c.InsertMany(ctxT(t), docs)
		must(t, err, "insert into %s", c.Name())
	}
	comparePipeline(t, s, u, mustPipe(t, exprPipeline), true, nil)
	out, err := aggregateAll(t, s, mustPipe(t, `[{"$match": {"_id": 1}}, {"$project": {"_id": 0,
		"x": {"$bitXor": [12, 10]}, "h": {"$toHashedIndexKey": 1}, "c": {"$cos": 0}}}]`), nil)
	must(t, err, "operators through the router")
	want := bson.D{{Key: "x", Value: int32(6)}, {Key: "h", Value: int64(5902408780260971510)}, {Key: "c", Value: 1.0}}
	if len(out) != 1 || !exSameDoc(out[0], want) {
		t.Fatalf("through the router: got %v, want [%v]", out, want)
	}
	for _, c := range []*mongo.Collection{s, u} {
		_, err := aggregateAll(t, c, mustPipe(t, `[{"$project": {"x": {"$acos": {"$add": ["$n", 2]}}}}]`), nil)
		if errCode(err) != 50989 {
			t.Fatalf("%s: $acos out of range: got %v, want code 50989", c.Name(), err)
		}
	}
}
