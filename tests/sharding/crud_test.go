package sharding

import (
	"strconv"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

func itoa(n int) string { return strconv.Itoa(n) }

// testCRUD writes two unsharded databases through the router: the first
// gets sh0 as primary shard (both shards hold none; ties go by _id), the
// second sh1 (the shard with fewer databases). Each database's data is on
// its primary shard only.
func testCRUD(t *testing.T, tp *topo, cl *mongo.Client) {
	want := map[string]string{"dba": "sh0", "dbb": "sh1"}
	for _, db := range []string{"dba", "dbb"} {
		coll := cl.Database(db).Collection("things")
		_, err := coll.InsertMany(ctxT(t), []any{
			bson.D{{Key: "_id", Value: 1}, {Key: "k", Value: "a"}, {Key: "n", Value: 1}},
			bson.D{{Key: "_id", Value: 2}, {Key: "k", Value: "b"}, {Key: "n", Value: 2}},
			bson.D{{Key: "_id", Value: 3}, {Key: "k", Value: "a"}, {Key: "n", Value: 3}},
		})
		must(t, err, "insert into %s", db)
		res, err := coll.UpdateOne(ctxT(t), bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 10}}}})
		must(t, err, "update %s", db)
		if res.ModifiedCount != 1 {
			t.Fatalf("update %s modified %d", db, res.ModifiedCount)
		}
		var got struct {
			N int `bson:"n"`
		}
		must(t, coll.FindOne(ctxT(t), bson.D{{Key: "_id", Value: 2}}).Decode(&got), "findOne %s", db)
		if got.N != 12 {
			t.Fatalf("%s: n = %d after $inc, want 12", db, got.N)
		}
		cur, err := coll.Aggregate(ctxT(t), mongo.Pipeline{
			{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$k"}, {Key: "total", Value: bson.D{{Key: "$sum", Value: "$n"}}}}}},
			{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
		})
		must(t, err, "aggregate %s", db)
		var groups []struct {
			ID    string `bson:"_id"`
			Total int    `bson:"total"`
		}
		must(t, cur.All(ctxT(t), &groups), "aggregate %s", db)
		if len(groups) != 2 || groups[0].Total != 4 || groups[1].Total != 12 {
			t.Fatalf("%s: aggregate = %+v", db, groups)
		}
		_, err = coll.Indexes().CreateOne(ctxT(t), mongo.IndexModel{Keys: bson.D{{Key: "k", Value: 1}}, Options: options.Index().SetName("k_1")})
		must(t, err, "createIndex %s", db)
		_, err = coll.DeleteOne(ctxT(t), bson.D{{Key: "_id", Value: 3}})
		must(t, err, "delete %s", db)

		// The metadata names the primary shard...
		var entry struct {
			Primary string `bson:"primary"`
			Version bson.M `bson:"version"`
		}
		must(t, cl.Database("config").Collection("databases").FindOne(ctxT(t), bson.D{{Key: "_id", Value: db}}).Decode(&entry), "config.databases %s", db)
		if entry.Primary != want[db] || entry.Version["uuid"] == nil || entry.Version["lastMod"] != int32(1) {
			t.Fatalf("config.databases %s = %+v, want primary %s with a version", db, entry, want[db])
		}
		// ...which holds the documents and the index; the other shard does not.
		for name := range tp.shards {
			direct := tp.shardClient(t, name).Database(db).Collection("things")
			n, err := direct.CountDocuments(ctxT(t), bson.D{})
			must(t, err, "count on %s", name)
			wantN := int64(0)
			if name == want[db] {
				wantN = 2
			}
			if n != wantN {
				t.Errorf("%s holds %d documents of %s, want %d", name, n, db, wantN)
			}
			if name == want[db] {
				specs, err := direct.Indexes().ListSpecifications(ctxT(t))
				must(t, err, "listIndexes on %s", name)
				if len(specs) != 2 {
					t.Errorf("%s: indexes %+v, want _id_ and k_1", name, specs)
				}
			}
		}
	}
	// The router's own listIndexes and listCollections reach the shard.
	names, err := cl.Database("dbb").ListCollectionNames(ctxT(t), bson.D{})
	must(t, err, "listCollections")
	if len(names) != 1 || names[0] != "things" {
		t.Errorf("listCollections dbb = %v", names)
	}
}
