package sharding

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestMetadataWriteConcern: the router's metadata commands accept the
// client's writeConcern as mongos does (any w is made "majority", its
// wtimeout kept) and refuse a malformed one with FailedToParse.
func TestMetadataWriteConcern(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	w1 := bson.E{Key: "writeConcern", Value: bson.D{{Key: "w", Value: 1}, {Key: "wtimeout", Value: 5000}}}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards["sh0"])}, w1}).Err(), "addShard w:1")
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards["sh1"])},
		{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}, {Key: "wtimeout", Value: 5000}}}}).Err(), "addShard majority")
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "enableSharding", Value: "mw"}, w1}).Err(), "enableSharding")
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "mw.c"}, {Key: "key", Value: bson.D{{Key: "x", Value: 1}}}, w1}).Err(), "shardCollection")
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "split", Value: "mw.c"}, {Key: "middle", Value: bson.D{{Key: "x", Value: 10}}}, w1}).Err(), "split")
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "balancerStart", Value: 1}, w1}).Err(), "balancerStart")
	for _, bad := range []bson.D{
		{{Key: "enableSharding", Value: "mw2"}, {Key: "writeConcern", Value: "majority"}},
		{{Key: "split", Value: "mw.c"}, {Key: "middle", Value: bson.D{{Key: "x", Value: 20}}}, {Key: "writeConcern", Value: bson.D{{Key: "w", Value: bson.D{}}}}},
		{{Key: "addShard", Value: seed(tp.shards["sh1"])}, {Key: "writeConcern", Value: bson.D{{Key: "wtimeout", Value: "soon"}}}},
		{{Key: "balancerStop", Value: 1}, {Key: "writeConcern", Value: "majority"}},
	} {
		checkCode(t, admin.RunCommand(ctxT(t), bad).Err(), 9, bad[0].Key+" with a malformed writeConcern")
	}
	var chunks []bson.M
	cur, err := cl.Database("config").Collection("chunks").Find(ctxT(t), bson.D{})
	must(t, err, "config.chunks")
	must(t, cur.All(ctxT(t), &chunks), "read config.chunks")
	if len(chunks) != 2 {
		t.Fatalf("after one split: %d chunks", len(chunks))
	}
	coll := cl.Database("mw").Collection("c")
	_, err = coll.InsertOne(ctxT(t), bson.D{{Key: "x", Value: 1}})
	must(t, err, "insert")
	must(t, coll.Database().RunCommand(ctxT(t), bson.D{{Key: "drop", Value: "c"}, w1}).Err(), "drop")
}
