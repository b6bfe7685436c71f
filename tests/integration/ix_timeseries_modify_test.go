package integration

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/tests/harness"
)

// ixTimeseries creates db.name as a time-series collection {t, m} and
// inserts measurements {_id: i, t, m: {k}, v: i} for the given ks.
func ixTimeseries(t *testing.T, ctx context.Context, db *mongo.Database, name string, ks ...string) *mongo.Collection {
	t.Helper()
	tso := options.TimeSeries().SetTimeField("t").SetMetaField("m")
	if err := db.CreateCollection(ctx, name, options.CreateCollection().SetTimeSeriesOptions(tso)); err != nil {
		t.Fatalf("create: %v", err)
	}
	coll := db.Collection(name)
	now := time.Now()
	var docs []any
	for i, k := range ks {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "t", Value: bson.NewDateTimeFromTime(now.Add(time.Duration(i) * time.Second))},
			{Key: "m", Value: bson.D{{Key: "k", Value: k}}}, {Key: "v", Value: i}})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	return coll
}

func ixCount(t *testing.T, ctx context.Context, coll *mongo.Collection, filter bson.D) int64 {
	t.Helper()
	n, err := coll.CountDocuments(ctx, filter)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestIxTimeseriesDeleteUpdate: as MongoDB 7.0, deletes on a time-series
// collection take any filter ($expr included) and limit; updates must be
// multi, without upsert, query and modify the metaField only (else 72 as
// a write error), and change the measurements the view shows.
func TestIxTimeseriesDeleteUpdate(t *testing.T) {
	_, c := startServer(t)
	ctx := tctx(t, 3*opTimeout)
	coll := ixTimeseries(t, ctx, c.Database("ixts"), "m", "a", "a", "a", "b", "b", "c", "c")
	if r, err := coll.DeleteOne(ctx, bson.D{{Key: "v", Value: bson.D{{Key: "$gte", Value: 1}}}}); err != nil || r.DeletedCount != 1 {
		t.Fatalf("deleteOne = %+v, %v", r, err)
	}
	if r, err := coll.DeleteMany(ctx, bson.D{{Key: "m.k", Value: "b"}}); err != nil || r.DeletedCount != 2 {
		t.Fatalf("deleteMany on the metaField = %+v, %v", r, err)
	}
	expr := bson.D{{Key: "$expr", Value: bson.D{{Key: "$gte", Value: bson.A{"$v", 6}}}}}
	if r, err := coll.DeleteMany(ctx, expr); err != nil || r.DeletedCount != 1 {
		t.Fatalf("deleteMany with $expr = %+v, %v", r, err)
	}
	if n := ixCount(t, ctx, coll, bson.D{}); n != 3 {
		t.Fatalf("after deletes: %d measurements, want 3", n)
	}
	set := func(f string) bson.D { return bson.D{{Key: "$set", Value: bson.D{{Key: f, Value: "z"}}}} }
	r, err := coll.UpdateMany(ctx, bson.D{{Key: "m.k", Value: "a"}}, set("m.k"))
	if err != nil || r.MatchedCount != 2 || r.ModifiedCount != 2 {
		t.Fatalf("updateMany on the metaField = %+v, %v", r, err)
	}
	if n := ixCount(t, ctx, coll, bson.D{{Key: "m.k", Value: "z"}}); n != 2 {
		t.Fatalf("after update: %d measurements with m.k z, want 2", n)
	}
	_, err = coll.UpdateOne(ctx, bson.D{{Key: "m.k", Value: "z"}}, set("m.k"))
	wantCode(t, err, 72, "updateOne")
	_, err = coll.UpdateMany(ctx, bson.D{{Key: "v", Value: 0}}, set("m.k"))
	wantCode(t, err, 72, "query off the metaField")
	_, err = coll.UpdateMany(ctx, bson.D{{Key: "m.k", Value: "z"}}, set("v"))
	wantCode(t, err, 72, "modify off the metaField")
	_, err = coll.UpdateMany(ctx, bson.D{{Key: "m.k", Value: "q"}}, set("m.k"), options.UpdateMany().SetUpsert(true))
	wantCode(t, err, 72, "upsert")
	_, err = coll.ReplaceOne(ctx, bson.D{{Key: "m.k", Value: "z"}}, bson.D{{Key: "m", Value: 1}})
	wantCode(t, err, 72, "replacement")
	if n := ixCount(t, ctx, coll, bson.D{{Key: "v", Value: bson.D{{Key: "$type", Value: "int"}}}}); n != 3 {
		t.Fatalf("refused updates changed measurements: %d left with v", n)
	}
}

// TestIxTimeseriesRetryableDelete: on a replica set a time-series deleteOne
// is a retryable write (a retry with the same txnNumber deletes nothing
// more and answers n: 1) and honours w: majority.
func TestIxTimeseriesRetryableDelete(t *testing.T) {
	set := harness.StartSets(t, []cluster.Spec{{Name: "rsixts"}})[0]
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl, err := mongo.Connect(options.Client().ApplyURI(set.URI()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Disconnect(ctx)
	db := cl.Database("ixts")
	coll := ixTimeseries(t, ctx, db, "r", "a", "a", "a")
	lsid := bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: []byte("0123456789abcdef")}}}
	cmd := bson.D{{Key: "delete", Value: "r"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{{Key: "m.k", Value: "a"}}}, {Key: "limit", Value: 1}}}},
		{Key: "lsid", Value: lsid}, {Key: "txnNumber", Value: int64(7)}, {Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}}}}
	for i := range 2 {
		var res bson.D
		if err := db.RunCommand(ctx, cmd).Decode(&res); err != nil || field(res, "n") != int32(1) {
			t.Fatalf("attempt %d: %s, %v", i, asJSON(res), err)
		}
	}
	if n := ixCount(t, ctx, coll, bson.D{}); n != 2 {
		t.Fatalf("a retried deleteOne deleted %d measurements, want 1", 3-n)
	}
}
