package sharding

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestMergeOnThroughRouter: $merge with an explicit 'on' through the
// router. From a sharded collection the router runs the $merge itself and
// checks 'on' as mongos does (51190 without a supporting unique index;
// _id is always supported); from an unsharded one the primary shard does
// (51183).
func TestMergeOnThroughRouter(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "mo.s"}, {Key: "key", Value: bson.D{{Key: "x", Value: "hashed"}}}}).Err(), "shardCollection")
	db := cl.Database("mo")
	docs := make([]any, 40)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "x", Value: i}, {Key: "k", Value: i % 10}}
	}
	for _, coll := range []string{"s", "u"} {
		_, err := db.Collection(coll).InsertMany(ctxT(t), docs)
		must(t, err, "insert %s", coll)
	}
	group := mustPipe(t, `[{"$group":{"_id":"$k","n":{"$sum":1}}},{"$project":{"_id":0,"k":"$_id","n":1}}]`)
	merge := func(from string, spec bson.D) error {
		_, err := aggregateAll(t, db.Collection(from), append(append(bson.A{}, group...), bson.D{{Key: "$merge", Value: spec}}), nil)
		return err
	}
	for _, from := range []string{"s", "u"} {
		target := "byid_" + from
		if err := merge(from, bson.D{{Key: "into", Value: target}, {Key: "on", Value: "_id"}}); err != nil {
			t.Fatalf("$merge from %s on _id: %v", from, err)
		}
		if n, err := db.Collection(target).CountDocuments(ctxT(t), bson.D{}); err != nil || n != 10 {
			t.Fatalf("$merge from %s on _id: %d documents (%v), want 10", from, n, err)
		}
	}
	checkCode(t, merge("s", bson.D{{Key: "into", Value: "byk"}, {Key: "on", Value: "k"}}), 51190, "on k without a unique index, from a sharded collection")
	checkCode(t, merge("u", bson.D{{Key: "into", Value: "byk"}, {Key: "on", Value: "k"}}), 51183, "on k without a unique index, from an unsharded collection")

	// With a unique index on k both match on it: n adds up over two runs.
	byk := db.Collection("byk")
	_, err := byk.Indexes().CreateOne(ctxT(t), mongo.IndexModel{Keys: bson.D{{Key: "k", Value: 1}}, Options: options.Index().SetUnique(true)})
	must(t, err, "unique index on k")
	sum := bson.A{bson.D{{Key: "$set", Value: bson.D{{Key: "n", Value: bson.D{{Key: "$add", Value: bson.A{"$n", "$$new.n"}}}}}}}}
	for _, from := range []string{"s", "u"} {
		must(t, merge(from, bson.D{{Key: "into", Value: "byk"}, {Key: "on", Value: "k"}, {Key: "whenMatched", Value: sum}}), "$merge from %s on k", from)
	}
	var got []struct{ K, N int32 }
	cur, err := byk.Find(ctxT(t), bson.D{}, options.Find().SetSort(bson.D{{Key: "k", Value: 1}}))
	must(t, err, "find byk")
	must(t, cur.All(ctxT(t), &got), "find byk")
	if len(got) != 10 {
		t.Fatalf("byk holds %d documents, want 10: %v", len(got), got)
	}
	for _, d := range got {
		if d.N != 8 {
			t.Fatalf("byk %v: n = %d, want 8 (4 from each run)", d, d.N)
		}
	}
}
