package integration

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/tests/harness"
)

// indexSpec returns listIndexes' spec of the index named name, or nil.
func indexSpec(t *testing.T, coll *mongo.Collection, name string) bson.D {
	t.Helper()
	cur, err := coll.Indexes().List(tctx(t, opTimeout))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range decodeAll(t, tctx(t, opTimeout), cur) {
		if field(s, "name") == name {
			return s
		}
	}
	return nil
}

func collMod(t *testing.T, coll *mongo.Collection, index bson.D) (bson.D, error) {
	t.Helper()
	var res bson.D
	err := coll.Database().RunCommand(tctx(t, opTimeout), bson.D{{Key: "collMod", Value: coll.Name()},
		{Key: "index", Value: index}}).Decode(&res)
	return res, err
}

// TestHiddenIndexes: a hidden index (createIndexes hidden: true, or collMod)
// is listed with hidden: true, still enforces uniqueness, is never chosen
// by the planner and cannot be hinted (BadValue 2); collMod's reply holds
// hidden_old/hidden_new; the change is logged as a collMod oplog entry and
// survives a restart. collMod also changes a TTL index's expireAfterSeconds.
func TestHiddenIndexes(t *testing.T) {
	srv, c := startServer(t)
	coll := freshColl(t, c, "hidden")
	ctx := tctx(t, opTimeout)
	models := []mongo.IndexModel{
		{Keys: bson.D{{Key: "a", Value: 1}}, Options: options.Index().SetHidden(true)},
		{Keys: bson.D{{Key: "u", Value: 1}}, Options: options.Index().SetUnique(true).SetHidden(true)},
		{Keys: bson.D{{Key: "at", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(3600)},
	}
	if _, err := coll.Indexes().CreateMany(ctx, models); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "a", Value: i % 5}, {Key: "u", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	if field(indexSpec(t, coll, "a_1"), "hidden") != true {
		t.Fatalf("listIndexes a_1 = %s, want hidden: true", asJSON(indexSpec(t, coll, "a_1")))
	}
	_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 100}, {Key: "u", Value: 3}})
	wantCode(t, err, 11000, "duplicate on a hidden unique index")
	wantStage(t, coll, bson.D{{Key: "a", Value: 2}}, nil, "COLLSCAN")
	err = coll.FindOne(ctx, bson.D{{Key: "a", Value: 2}}, options.FindOne().SetHint("a_1")).Err()
	wantCode(t, err, 2, "hint to a hidden index")

	res, err := collMod(t, coll, bson.D{{Key: "name", Value: "a_1"}, {Key: "hidden", Value: false}})
	if err != nil || field(res, "hidden_old") != true || field(res, "hidden_new") != false {
		t.Fatalf("collMod unhide = %s, %v", asJSON(res), err)
	}
	if _, ok := field(indexSpec(t, coll, "a_1"), "hidden").(bool); ok {
		t.Errorf("unhidden index still lists hidden: %s", asJSON(indexSpec(t, coll, "a_1")))
	}
	wantStage(t, coll, bson.D{{Key: "a", Value: 2}}, nil, "IXSCAN")
	if n, err := coll.CountDocuments(ctx, bson.D{{Key: "a", Value: 2}}, options.Count().SetHint("a_1")); err != nil || n != 4 {
		t.Fatalf("count with hint = %d, %v", n, err)
	}
	if _, err := collMod(t, coll, bson.D{{Key: "keyPattern", Value: bson.D{{Key: "a", Value: 1}}}, {Key: "hidden", Value: true}}); err != nil {
		t.Fatal(err)
	}
	res, err = collMod(t, coll, bson.D{{Key: "name", Value: "at_1"}, {Key: "expireAfterSeconds", Value: 60}})
	if err != nil || field(res, "expireAfterSeconds_old") != int64(3600) || field(res, "expireAfterSeconds_new") != int64(60) {
		t.Fatalf("collMod expireAfterSeconds = %s, %v", asJSON(res), err)
	}
	_, err = collMod(t, coll, bson.D{{Key: "name", Value: "nope"}, {Key: "hidden", Value: true}})
	wantCode(t, err, 27, "collMod of a missing index")
	_, err = collMod(t, coll, bson.D{{Key: "name", Value: "_id_"}, {Key: "hidden", Value: true}})
	wantCode(t, err, 2, "hiding _id_")
	_, err = collMod(t, coll, bson.D{{Key: "name", Value: "a_1"}, {Key: "expireAfterSeconds", Value: 5}})
	wantCode(t, err, 72, "expireAfterSeconds on a non-TTL index")

	var entry bson.D
	err = c.Database("local").Collection("oplog.rs").FindOne(ctx, bson.D{{Key: "op", Value: "c"},
		{Key: "o.collMod", Value: coll.Name()}, {Key: "o.index.name", Value: "at_1"}}).Decode(&entry)
	if err != nil {
		t.Fatalf("no collMod oplog entry for the TTL change: %v", err)
	}

	srv.Restart(t)
	coll = srv.Client(t).Database("hidden").Collection(coll.Name())
	if field(indexSpec(t, coll, "a_1"), "hidden") != true {
		t.Errorf("after restart a_1 = %s, want hidden", asJSON(indexSpec(t, coll, "a_1")))
	}
	if v := field(indexSpec(t, coll, "at_1"), "expireAfterSeconds"); v != int64(60) {
		t.Errorf("after restart at_1 expireAfterSeconds = %v, want 60", v)
	}
	wantStage(t, coll, bson.D{{Key: "a", Value: 2}}, nil, "COLLSCAN")
}

// TestCollModTTLTakesEffect: after collMod lowers a TTL index's
// expireAfterSeconds, the TTL monitor deletes by the new value (the
// document is younger than the old one), also while the index is hidden.
func TestCollModTTLTakesEffect(t *testing.T) {
	srv := harness.Start(t, harness.WithArgs("--setParameter", "ttlMonitorSleepSecs=1"))
	coll := freshColl(t, srv.Client(t), "ttlmod")
	ctx := tctx(t, 30*time.Second)
	idx := mongo.IndexModel{Keys: bson.D{{Key: "at", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(3600).SetHidden(true)}
	if _, err := coll.Indexes().CreateOne(ctx, idx); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "at", Value: time.Now().Add(-time.Minute)}}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2500 * time.Millisecond) // a few monitor passes under the old expiry
	if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 1 {
		t.Fatalf("before collMod: %d documents (%v), want 1", n, err)
	}
	if _, err := collMod(t, coll, bson.D{{Key: "name", Value: "at_1"}, {Key: "expireAfterSeconds", Value: 5}}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, err := coll.CountDocuments(ctx, bson.D{})
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("document older than the new expireAfterSeconds still present after 10 s")
		}
		time.Sleep(200 * time.Millisecond)
	}
}
