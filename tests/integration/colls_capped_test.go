package integration

import (
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// naturalIDs returns the _id of each document of a natural-order find.
func naturalIDs(t *testing.T, coll *mongo.Collection) []int32 {
	t.Helper()
	ctx := tctx(t, opTimeout)
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "$natural", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var out []int32
	for cur.Next(ctx) {
		out = append(out, cur.Current.Lookup("_id").Int32())
	}
	return out
}

func sameIDs(a []int32, b ...int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestCappedEvictsOldest(t *testing.T) {
	_, c := startServer(t)
	ctx := tctx(t, 30*opTimeout)
	db := c.Database("capped")
	if err := db.CreateCollection(ctx, "bymax", options.CreateCollection().SetCapped(true).SetSizeInBytes(100000).SetMaxDocuments(3)); err != nil {
		t.Fatalf("create: %v", err)
	}
	coll := db.Collection("bymax")
	for i := int32(1); i <= 5; i++ {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	if got := naturalIDs(t, coll); !sameIDs(got, 3, 4, 5) {
		t.Errorf("after 5 inserts with max 3: %v", got)
	}
	if err := db.RunCommand(ctx, bson.D{{Key: "collMod", Value: "bymax"}, {Key: "cappedMax", Value: 2}}).Err(); err != nil {
		t.Fatalf("collMod cappedMax: %v", err)
	}
	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 6}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}, options.UpdateOne().SetUpsert(true)); err != nil {
		t.Fatal(err)
	}
	if got := naturalIDs(t, coll); !sameIDs(got, 5, 6) {
		t.Errorf("after cappedMax 2 and an upsert: %v", got)
	}
	// Deletes and updates are allowed (MongoDB 5.0+).
	if _, err := coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: 5}}); err != nil {
		t.Errorf("delete: %v", err)
	}
	// Size: documents of about 100 bytes in a 1000-byte collection.
	if err := db.CreateCollection(ctx, "bysize", options.CreateCollection().SetCapped(true).SetSizeInBytes(1000)); err != nil {
		t.Fatal(err)
	}
	bs := db.Collection("bysize")
	for i := int32(1); i <= 30; i++ {
		if _, err := bs.InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "pad", Value: strings.Repeat("x", 80)}}); err != nil {
			t.Fatal(err)
		}
	}
	got := naturalIDs(t, bs)
	if len(got) == 0 || len(got) > 11 || got[len(got)-1] != 30 {
		t.Errorf("size-capped ids = %v", got)
	}
	var stats bson.Raw
	stats, err := db.RunCommand(ctx, bson.D{{Key: "collStats", Value: "bysize"}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	if !stats.Lookup("capped").Boolean() || stats.Lookup("maxSize").AsInt64() != 1024 || stats.Lookup("size").AsInt64() > 1024 {
		t.Errorf("collStats = %v", stats)
	}
	specs, err := db.ListCollectionSpecifications(ctx, bson.D{{Key: "name", Value: "bymax"}})
	if err != nil || len(specs) != 1 || !specs[0].Options.Lookup("capped").Boolean() || specs[0].Options.Lookup("max").AsInt64() != 2 {
		t.Errorf("listCollections = %v, %v", specs, err)
	}
	wantCode(t, db.RunCommand(ctx, bson.D{{Key: "create", Value: "nosize"}, {Key: "capped", Value: true}}).Err(), 72, "capped without size")
	wantCode(t, db.RunCommand(ctx, bson.D{{Key: "create", Value: "badsize"}, {Key: "capped", Value: true}, {Key: "size", Value: -1}}).Err(), 2, "negative size")
	if _, err := db.Collection("plain").InsertOne(ctx, bson.D{}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, db.RunCommand(ctx, bson.D{{Key: "collMod", Value: "plain"}, {Key: "cappedSize", Value: 4096}}).Err(), 72, "cappedSize on a plain collection")
	_, err = db.Collection("plain").Find(ctx, bson.D{}, options.Find().SetCursorType(options.Tailable))
	wantCode(t, err, 2, "tailable on a plain collection")
}

func TestCappedTailableCursor(t *testing.T) {
	_, c := startServer(t)
	ctx := tctx(t, 30*opTimeout)
	db := c.Database("capped")
	if err := db.CreateCollection(ctx, "log", options.CreateCollection().SetCapped(true).SetSizeInBytes(1<<20)); err != nil {
		t.Fatal(err)
	}
	coll := db.Collection("log")
	for _, id := range []int32{10, 20} {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "k", Value: "a"}}); err != nil {
			t.Fatal(err)
		}
	}
	cur, err := coll.Find(ctx, bson.D{{Key: "k", Value: "a"}},
		options.Find().SetCursorType(options.TailableAwait).SetMaxAwaitTime(200*time.Millisecond).SetBatchSize(1))
	if err != nil {
		t.Fatalf("tailable find: %v", err)
	}
	defer cur.Close(ctx)
	next := func(want int32) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if cur.TryNext(ctx) {
				if got := cur.Current.Lookup("_id").Int32(); got != want {
					t.Fatalf("tailable cursor returned %d, want %d", got, want)
				}
				return
			}
			if cur.Err() != nil || cur.ID() == 0 {
				t.Fatalf("cursor ended: %v (id %d)", cur.Err(), cur.ID())
			}
		}
		t.Fatalf("no document %d within 5s", want)
	}
	next(10)
	next(20)
	if cur.TryNext(ctx) {
		t.Fatalf("unexpected document %v", cur.Current)
	}
	// A later insert comes next whatever its _id; non-matching documents
	// and other collections' inserts are skipped.
	_, _ = db.Collection("other").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "k", Value: "a"}})
	_, _ = coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 2}, {Key: "k", Value: "b"}})
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 5}, {Key: "k", Value: "a"}}); err != nil {
		t.Fatal(err)
	}
	next(5)
	// awaitData: a getMore waits for an insert made while it waits.
	go func() {
		time.Sleep(50 * time.Millisecond)
		_, _ = coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 30}, {Key: "k", Value: "a"}})
	}()
	next(30)
}

func TestConvertAndCloneAsCapped(t *testing.T) {
	_, c := startServer(t)
	ctx := tctx(t, 30*opTimeout)
	db := c.Database("capped")
	plain := db.Collection("plain")
	var docs []any
	for i := int32(1); i <= 50; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "pad", Value: strings.Repeat("y", 80)}})
	}
	if _, err := plain.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	run := func(cmd bson.D) error { return db.RunCommand(ctx, cmd).Err() }
	if err := run(bson.D{{Key: "cloneCollectionAsCapped", Value: "plain"}, {Key: "toCollection", Value: "copy"}, {Key: "size", Value: 1000}}); err != nil {
		t.Fatalf("cloneCollectionAsCapped: %v", err)
	}
	got := naturalIDs(t, db.Collection("copy"))
	if len(got) == 0 || len(got) > 11 || got[len(got)-1] != 50 {
		t.Errorf("capped copy ids = %v", got)
	}
	if n, _ := plain.CountDocuments(ctx, bson.D{}); n != 50 {
		t.Errorf("source changed: %d documents", n)
	}
	if err := run(bson.D{{Key: "convertToCapped", Value: "plain"}, {Key: "size", Value: 100000}}); err != nil {
		t.Fatalf("convertToCapped: %v", err)
	}
	stats, err := db.RunCommand(ctx, bson.D{{Key: "collStats", Value: "plain"}}).Raw()
	if err != nil || !stats.Lookup("capped").Boolean() || stats.Lookup("count").AsInt64() != 50 {
		t.Errorf("after convertToCapped: %v %v", stats, err)
	}
	wantCode(t, run(bson.D{{Key: "convertToCapped", Value: "missing"}, {Key: "size", Value: 1000}}), 26, "convertToCapped of a missing collection")
	wantCode(t, run(bson.D{{Key: "cloneCollectionAsCapped", Value: "plain"}, {Key: "toCollection", Value: "copy"}, {Key: "size", Value: 1000}}), 48, "clone onto an existing collection")
}
