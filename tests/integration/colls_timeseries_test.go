package integration

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

func TestTimeseriesCollection(t *testing.T) {
	s, c := startServer(t)
	ctx := tctx(t, 20*opTimeout)
	db := c.Database("ts")
	tso := options.TimeSeries().SetTimeField("time").SetMetaField("meta").SetGranularity("minutes")
	if err := db.CreateCollection(ctx, "m", options.CreateCollection().SetTimeSeriesOptions(tso).SetExpireAfterSeconds(3600)); err != nil {
		t.Fatalf("create: %v", err)
	}
	coll := db.Collection("m")
	now := time.Now().Truncate(time.Millisecond)
	docs := []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "time", Value: bson.NewDateTimeFromTime(now.Add(time.Second))}, {Key: "meta", Value: "a"}, {Key: "v", Value: 2}},
		bson.D{{Key: "_id", Value: 1}, {Key: "time", Value: bson.NewDateTimeFromTime(now)}, {Key: "meta", Value: "b"}, {Key: "v", Value: 1}},
		bson.D{{Key: "time", Value: bson.NewDateTimeFromTime(now.Add(2 * time.Second))}, {Key: "meta", Value: "a"}, {Key: "v", Value: 3}},
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatalf("insert (duplicate _ids are allowed): %v", err)
	}
	_, err := coll.InsertOne(ctx, bson.D{{Key: "time", Value: "not a date"}})
	wantCode(t, err, 2, "measurement without a date timeField")
	check := func(when string) {
		cur, err := coll.Find(ctx, bson.D{{Key: "meta", Value: "a"}}, options.Find().SetSort(bson.D{{Key: "time", Value: 1}}))
		if err != nil {
			t.Fatalf("%s: find: %v", when, err)
		}
		var got []bson.M
		if err := cur.All(ctx, &got); err != nil || len(got) != 2 || got[0]["v"] != int32(2) || got[1]["v"] != int32(3) || got[1]["_id"] == nil {
			t.Errorf("%s: find = %v, %v", when, got, err)
		}
		if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 3 {
			t.Errorf("%s: count = %d, %v", when, n, err)
		}
		specs, err := db.ListCollectionSpecifications(ctx, bson.D{{Key: "name", Value: "m"}})
		if err != nil || len(specs) != 1 || specs[0].Type != "timeseries" ||
			specs[0].Options.Lookup("timeseries", "granularity").StringValue() != "minutes" ||
			specs[0].Options.Lookup("timeseries", "bucketMaxSpanSeconds").AsInt64() != 86400 ||
			specs[0].Options.Lookup("expireAfterSeconds").AsInt64() != 3600 {
			t.Errorf("%s: listCollections = %+v, %v", when, specs, err)
		}
	}
	check("before restart")
	if res, err := coll.DeleteMany(ctx, bson.D{{Key: "meta", Value: "none"}}); err != nil || res.DeletedCount != 0 {
		t.Errorf("delete matching nothing = %+v, %v", res, err)
	}
	s.Restart(t)
	c = s.Client(t)
	db = c.Database("ts")
	coll = db.Collection("m")
	check("after restart")
	run := func(cmd bson.D) error { return db.RunCommand(ctx, cmd).Err() }
	wantCode(t, run(bson.D{{Key: "create", Value: "bad"}, {Key: "timeseries", Value: bson.D{{Key: "metaField", Value: "m"}}}}), 40414, "no timeField")
	wantCode(t, run(bson.D{{Key: "create", Value: "bad"}, {Key: "timeseries", Value: bson.D{{Key: "timeField", Value: "t"}, {Key: "granularity", Value: "days"}}}}), 2, "granularity")
	wantCode(t, run(bson.D{{Key: "create", Value: "bad"}, {Key: "timeseries", Value: bson.D{{Key: "timeField", Value: "t"}}}, {Key: "capped", Value: true}}), 72, "capped time-series")
	if err := coll.Drop(ctx); err != nil {
		t.Fatal(err)
	}
	names, _ := db.ListCollectionNames(ctx, bson.D{})
	if len(names) != 0 {
		t.Errorf("after drop: %v", names)
	}
}
