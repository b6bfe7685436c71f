package sharding

import (
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestChangeStreamShardCollectionEvent: a stream opened through the
// router with showExpandedEvents on an unsharded collection reports its
// sharding as a shardCollection event with the key in
// operationDescription, then the collection's writes; a stream without
// showExpandedEvents sees only the writes.
func TestChangeStreamShardCollectionEvent(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	ctx := ctxT(t)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctx, bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	db := cl.Database("r2cs")
	must(t, db.CreateCollection(ctx, "c"), "create r2cs.c")
	coll := db.Collection("c")
	expanded, err := coll.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetShowExpandedEvents(true))
	must(t, err, "watch with showExpandedEvents")
	defer expanded.Close(ctx)
	plain, err := coll.Watch(ctx, mongo.Pipeline{})
	must(t, err, "watch")
	defer plain.Close(ctx)
	must(t, admin.RunCommand(ctx, bson.D{{Key: "shardCollection", Value: "r2cs.c"},
		{Key: "key", Value: bson.D{{Key: "_id", Value: int32(1)}}}}).Err(), "shardCollection")
	_, err = coll.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(7)}})
	must(t, err, "insert")

	ev := csNext(t, expanded, 10*time.Second)
	if ev["operationType"] != "shardCollection" {
		t.Fatalf("first event with showExpandedEvents: %v, want shardCollection", ev)
	}
	desc := ev["operationDescription"]
	key, _ := r2Field(desc, "shardKey").(bson.D)
	if len(key) != 1 || r2Field(key, "_id") != int32(1) || r2Field(desc, "unique") != false {
		t.Errorf("operationDescription %v, want shardKey {_id: 1}, unique false", desc)
	}
	if ns := ev["ns"]; r2Field(ns, "db") != "r2cs" || r2Field(ns, "coll") != "c" {
		t.Errorf("ns %v, want r2cs.c", ns)
	}
	if ev := csNext(t, expanded, 10*time.Second); ev["operationType"] != "insert" {
		t.Errorf("after shardCollection: %v, want the insert", ev)
	}
	if ev := csNext(t, plain, 10*time.Second); ev["operationType"] != "insert" {
		t.Errorf("without showExpandedEvents: %v, want only the insert", ev)
	}
}

// TestChangeStreamRouterGetMoreFailPoint: the router's
// failGetMoreAfterCursorCheckout fails a client's getMore once with its
// errorCode; on a change stream a resumable code carries
// ResumableChangeStreamError, so the driver resumes and the event still
// comes; a non-resumable code reaches the application without the label.
func TestChangeStreamRouterGetMoreFailPoint(t *testing.T) {
	_, cl := csWatchSetup(t)
	ctx := ctxT(t)
	admin := cl.Database("admin")
	coll := cl.Database("cs").Collection("c")
	fail := func(code int32) {
		must(t, admin.RunCommand(ctx, bson.D{{Key: "configureFailPoint", Value: "failGetMoreAfterCursorCheckout"},
			{Key: "mode", Value: bson.D{{Key: "times", Value: int32(1)}}},
			{Key: "data", Value: bson.D{{Key: "errorCode", Value: code}}}}).Err(), "configureFailPoint")
	}
	cs, err := coll.Watch(ctx, mongo.Pipeline{})
	must(t, err, "watch")
	defer cs.Close(ctx)
	fail(6) // HostUnreachable: resumable
	_, err = coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "a"}, {Key: "x", Value: int32(1)}})
	must(t, err, "insert")
	if ev := csNext(t, cs, 10*time.Second); csDocKey(ev, "_id") != "a" {
		t.Fatalf("after a resumable getMore failure: %v, want the insert of _id a", ev)
	}

	cs2, err := coll.Watch(ctx, mongo.Pipeline{})
	must(t, err, "watch")
	defer cs2.Close(ctx)
	fail(2) // BadValue: not resumable
	deadline := time.Now().Add(10 * time.Second)
	for cs2.Err() == nil && time.Now().Before(deadline) {
		cs2.TryNext(ctx)
	}
	var se mongo.ServerError
	if err := cs2.Err(); err == nil || !errors.As(err, &se) || !se.HasErrorCode(2) || se.HasErrorLabel("ResumableChangeStreamError") {
		t.Fatalf("a non-resumable getMore failure: %v, want code 2 without ResumableChangeStreamError", err)
	}

	// A plain cursor's getMore fails with the code too.
	docs := make([]any, 5)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: 1000 + i}, {Key: "x", Value: int32(i)}}
	}
	_, err = coll.InsertMany(ctx, docs)
	must(t, err, "insert")
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetBatchSize(1))
	must(t, err, "find")
	defer cur.Close(ctx)
	fail(2)
	for cur.Next(ctx) {
	}
	if err := cur.Err(); err == nil || !errors.As(err, &se) || !se.HasErrorCode(2) {
		t.Fatalf("a find cursor's getMore: %v, want code 2", err)
	}
}

// r2Field is field key of a decoded document (bson.D or bson.M); nil when
// absent.
func r2Field(doc any, key string) any {
	switch d := doc.(type) {
	case bson.M:
		return d[key]
	case bson.D:
		for _, e := range d {
			if e.Key == key {
				return e.Value
			}
		}
	}
	return nil
}
