package sharding

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestCollationThroughRouter: a collation passes through the router to an
// unsharded collection, and a sharded query with a non-simple collation
// is not targeted by string shard key values ("A" and "a" live on
// different shards; under strength 2 both match).
func TestCollationThroughRouter(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	ctx := ctxT(t)
	en2 := &options.Collation{Locale: "en", Strength: 2}

	plain := cl.Database("colr").Collection("plain")
	_, err := plain.InsertMany(ctx, []any{bson.D{{Key: "s", Value: "a"}}, bson.D{{Key: "s", Value: "A"}}})
	must(t, err, "insert unsharded")
	if n, err := plain.CountDocuments(ctx, bson.D{{Key: "s", Value: "a"}}, options.Count().SetCollation(en2)); err != nil || n != 2 {
		t.Errorf("unsharded count under en/2 through the router: %d %v, want 2", n, err)
	}

	must(t, admin.RunCommand(ctx, bson.D{{Key: "shardCollection", Value: "colr.c"}, {Key: "key", Value: bson.D{{Key: "sk", Value: 1}}}}).Err(), "shardCollection")
	must(t, admin.RunCommand(ctx, bson.D{{Key: "split", Value: "colr.c"}, {Key: "middle", Value: bson.D{{Key: "sk", Value: "M"}}}}).Err(), "split")
	var dbDoc struct {
		Primary string `bson:"primary"`
	}
	must(t, cl.Database("config").Collection("databases").FindOne(ctx, bson.D{{Key: "_id", Value: "colr"}}).Decode(&dbDoc), "config.databases")
	other := map[string]string{"sh0": "sh1", "sh1": "sh0"}[dbDoc.Primary]
	must(t, admin.RunCommand(ctx, bson.D{{Key: "moveChunk", Value: "colr.c"}, {Key: "find", Value: bson.D{{Key: "sk", Value: "a"}}}, {Key: "to", Value: other}}).Err(), "moveChunk")
	coll := cl.Database("colr").Collection("c")
	_, err = coll.InsertMany(ctx, []any{bson.D{{Key: "sk", Value: "a"}}, bson.D{{Key: "sk", Value: "A"}}})
	must(t, err, "insert sharded")
	cur, err := coll.Find(ctx, bson.D{{Key: "sk", Value: "a"}}, options.Find().SetCollation(en2))
	must(t, err, "find under en/2")
	var docs []bson.D
	must(t, cur.All(ctx, &docs), "find under en/2")
	if len(docs) != 2 {
		t.Errorf("sharded find {sk: \"a\"} under en/2: %v, want both \"a\" and \"A\"", docs)
	}
	if n, err := coll.CountDocuments(ctx, bson.D{{Key: "sk", Value: "A"}}, options.Count().SetCollation(en2)); err != nil || n != 2 {
		t.Errorf("sharded count under en/2: %d %v, want 2", n, err)
	}
	if n, err := coll.CountDocuments(ctx, bson.D{{Key: "sk", Value: "A"}}); err != nil || n != 1 {
		t.Errorf("sharded count binary: %d %v, want 1", n, err)
	}
	var vals []string
	err = coll.Distinct(ctx, "sk", bson.D{}, options.Distinct().SetCollation(en2)).Decode(&vals)
	if err != nil || len(vals) != 1 {
		t.Errorf("sharded distinct under en/2: %q %v, want one value (\"a\" and \"A\" are equal)", vals, err)
	}

	// A single update statement naming the key's string goes to every
	// shard under a collation (the raw forwarding path included).
	up, err := coll.UpdateMany(ctx, bson.D{{Key: "sk", Value: "a"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "hit", Value: 1}}}},
		options.UpdateMany().SetCollation(en2))
	if err != nil || up.MatchedCount != 2 {
		t.Errorf("sharded updateMany {sk: \"a\"} under en/2: %+v %v, want 2 matched", up, err)
	}

	// "B" lives with "A", "b" with "a": the router merges two sorted
	// streams, and must merge under the collation (en: a < A < b < B).
	_, err = coll.InsertMany(ctx, []any{bson.D{{Key: "sk", Value: "B"}}, bson.D{{Key: "sk", Value: "b"}}})
	must(t, err, "insert B, b")
	cur, err = coll.Find(ctx, bson.D{}, options.Find().SetCollation(&options.Collation{Locale: "en"}).SetSort(bson.D{{Key: "sk", Value: 1}}))
	must(t, err, "sorted find under en")
	var sorted []struct{ SK string }
	must(t, cur.All(ctx, &sorted), "sorted find under en")
	var order []string
	for _, d := range sorted {
		order = append(order, d.SK)
	}
	if strings.Join(order, ",") != "a,A,b,B" {
		t.Errorf("sharded sorted find under en: %v, want [a A b B]", order)
	}
	agg, err := coll.Aggregate(ctx, bson.A{bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$sk"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}}},
		options.Aggregate().SetCollation(en2))
	must(t, err, "sharded $group under en/2")
	var groups []bson.D
	must(t, agg.All(ctx, &groups), "sharded $group under en/2")
	if len(groups) != 2 {
		t.Errorf("sharded $group under en/2: %v, want 2 groups (a/A, b/B)", groups)
	}

	// Sharding a collection with a default collation: its shard key index
	// is simple all the same.
	must(t, cl.Database("colr").CreateCollection(ctx, "dc", options.CreateCollection().SetCollation(en2)), "create dc")
	err = admin.RunCommand(ctx, bson.D{{Key: "shardCollection", Value: "colr.dc"}, {Key: "key", Value: bson.D{{Key: "sk", Value: 1}}}}).Err()
	if ce, ok := err.(mongo.CommandError); !ok || ce.Code != 2 {
		t.Errorf("shardCollection of a collated collection without collation simple: %v, want BadValue", err)
	}
	must(t, admin.RunCommand(ctx, bson.D{{Key: "shardCollection", Value: "colr.dc"}, {Key: "key", Value: bson.D{{Key: "sk", Value: 1}}},
		{Key: "collation", Value: bson.D{{Key: "locale", Value: "simple"}}}}).Err(), "shardCollection dc")
	ixCur, err := cl.Database("colr").Collection("dc").Indexes().List(ctx)
	must(t, err, "listIndexes dc")
	var ixs []bson.Raw
	must(t, ixCur.All(ctx, &ixs), "listIndexes dc")
	for _, ix := range ixs {
		if ix.Lookup("name").StringValue() == "sk_1" {
			if _, err := ix.LookupErr("collation"); err == nil {
				t.Errorf("shard key index %v: want the simple collation", ix)
			}
			return
		}
	}
	t.Errorf("listIndexes dc %v: no sk_1", ixs)
}
