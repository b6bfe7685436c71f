package sharding

import (
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// The views test's data: vw.c sharded on {x: "hashed"} holding x = 0..199
// with g = x % 7; vw.v = c where g < 5; vw.vv = v where x >= 100; vw.uv a
// view of the unsharded vw.plain (3 documents).
const viewDocs = 200

// viewN is the number of documents in vw.v.
var viewN = int32(len(viewXs(0, true)))

// viewXs are the x of v's documents with x >= from, ascending or not.
func viewXs(from int, asc bool) []int {
	var out []int
	for x := from; x < viewDocs; x++ {
		if x%7 < 5 {
			out = append(out, x)
		}
	}
	if !asc {
		slices.Reverse(out)
	}
	return out
}

// countAtLeast is the number of v's documents with x >= from.
func countAtLeast(from int) int { return len(viewXs(from, true)) }

func setUpViews(t *testing.T, tp *topo, cl *mongo.Client) *mongo.Database {
	t.Helper()
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "vw.c"}, {Key: "key", Value: bson.D{{Key: "x", Value: "hashed"}}}}).Err(), "shardCollection")
	db := cl.Database("vw")
	docs := make([]any, viewDocs)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "x", Value: i}, {Key: "g", Value: i % 7}}
	}
	_, err := db.Collection("c").InsertMany(ctxT(t), docs)
	must(t, err, "insert")
	_, err = db.Collection("plain").InsertMany(ctxT(t), []any{bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "a", Value: 2}}, bson.D{{Key: "a", Value: 3}}})
	must(t, err, "insert plain")
	must(t, db.CreateView(ctxT(t), "v", "c", bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "g", Value: bson.D{{Key: "$lt", Value: 5}}}}}}}), "create v")
	must(t, db.CreateView(ctxT(t), "vv", "v", bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "x", Value: bson.D{{Key: "$gte", Value: 100}}}}}}}), "create vv")
	must(t, db.CreateView(ctxT(t), "uv", "plain", bson.A{}), "create uv")
	return db
}

// primaryShard is db's primary shard from config.databases.
func primaryShard(t *testing.T, cl *mongo.Client, db string) string {
	t.Helper()
	var d struct{ Primary string }
	must(t, cl.Database("config").Collection("databases").FindOne(ctxT(t), bson.D{{Key: "_id", Value: db}}).Decode(&d), "config.databases")
	return d.Primary
}

func arrayOf(v bson.RawValue) []bson.RawValue {
	a, ok := v.ArrayOK()
	if !ok {
		return nil
	}
	vals, _ := a.Values()
	return vals
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
