package changestream

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
)

// TestChangeStreams runs the stream checks on one shared set.
func TestChangeStreams(t *testing.T) {
	_, cl := startSet(t, "rscs")
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, *mongo.Client)
	}{
		{"CollectionEvents", testCollectionEvents},
		{"DatabaseAndCluster", testDatabaseAndCluster},
		{"UpdateLookup", testUpdateLookup},
		{"Resume", testResume},
		{"Invalidate", testInvalidate},
		{"PostBatchResumeToken", testPostBatchResumeToken},
		{"HistoryLost", testHistoryLost},
		{"Stages", testStages},
		{"ReadConcern", testReadConcern},
		{"Images", testImages},
		{"ModifyEvent", testModifyEvent},
		{"SecondaryStream", testSecondaryStream},
		{"CursorCommands", testCursorCommands},
		{"SplitLargeEvent", testSplitLargeEvent},
		{"DDLEvents", testDDLEvents},
		{"GetMoreFailPoint", testGetMoreFailPoint},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, cl) })
	}
}

// testCollectionEvents: insert, update (updateDescription), replace and
// delete arrive in order with MongoDB's fields; other collections' writes
// do not.
func testCollectionEvents(t *testing.T, cl *mongo.Client) {
	ctx := ctxT(t)
	coll := cl.Database("cs1").Collection("c")
	cs := watch(t, coll, nil)
	_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}, {Key: "b", Value: 2}})
	must(t, err)
	_, err = cl.Database("cs1").Collection("other").InsertOne(ctx, bson.D{{Key: "x", Value: 1}})
	must(t, err)
	_, err = coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: 5}}}, {Key: "$unset", Value: bson.D{{Key: "b", Value: ""}}}})
	must(t, err)
	_, err = coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "z", Value: "r"}})
	must(t, err)
	_, err = coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: 1}})
	must(t, err)
	evs := expectOps(t, cs, "insert", "update", "replace", "delete")
	ins := evs[0]
	if ns := ins["ns"].(bson.M); ns["db"] != "cs1" || ns["coll"] != "c" {
		t.Errorf("insert ns %v", ns)
	}
	if fd := ins["fullDocument"].(bson.M); fd["a"] != int32(1) || ins["documentKey"].(bson.M)["_id"] != int32(1) {
		t.Errorf("insert event %v", ins)
	}
	for _, f := range []string{"_id", "clusterTime", "wallTime"} {
		if ins[f] == nil {
			t.Errorf("insert event lacks %s: %v", f, ins)
		}
	}
	ud := evs[1]["updateDescription"].(bson.M)
	if ud["updatedFields"].(bson.M)["a"] != int32(5) || len(ud["removedFields"].(bson.A)) != 1 || ud["removedFields"].(bson.A)[0] != "b" {
		t.Errorf("updateDescription %v", ud)
	}
	if _, has := evs[1]["fullDocument"]; has {
		t.Errorf("update without updateLookup has fullDocument: %v", evs[1])
	}
	if evs[2]["fullDocument"].(bson.M)["z"] != "r" {
		t.Errorf("replace event %v", evs[2])
	}
	if evs[3]["documentKey"].(bson.M)["_id"] != int32(1) {
		t.Errorf("delete event %v", evs[3])
	}
}

// testDatabaseAndCluster: a database stream sees its collections, a
// cluster stream every database.
func testDatabaseAndCluster(t *testing.T, cl *mongo.Client) {
	ctx := ctxT(t)
	dcs, err := cl.Database("cs2").Watch(ctx, mongo.Pipeline{})
	must(t, err)
	defer dcs.Close(ctx)
	ccs, err := cl.Watch(ctx, mongo.Pipeline{})
	must(t, err)
	defer ccs.Close(ctx)
	for _, ns := range [][2]string{{"cs2", "a"}, {"cs3", "b"}, {"cs2", "c"}} {
		_, err := cl.Database(ns[0]).Collection(ns[1]).InsertOne(ctx, bson.D{{Key: "ns", Value: ns[0] + "." + ns[1]}})
		must(t, err)
	}
	for _, want := range []string{"cs2.a", "cs2.c"} {
		if ev := next(t, dcs); ev["fullDocument"].(bson.M)["ns"] != want {
			t.Errorf("database stream: %v, want %s", ev, want)
		}
	}
	for _, want := range []string{"cs2.a", "cs3.b", "cs2.c"} {
		if ev := next(t, ccs); ev["fullDocument"].(bson.M)["ns"] != want {
			t.Errorf("cluster stream: %v, want %s", ev, want)
		}
	}
}

func testUpdateLookup(t *testing.T, cl *mongo.Client) {
	ctx := ctxT(t)
	coll := cl.Database("cs4").Collection("c")
	cs := watch(t, coll, nil, options.ChangeStream().SetFullDocument(options.UpdateLookup))
	_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "n", Value: 1}})
	must(t, err)
	_, err = coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}})
	must(t, err)
	evs := expectOps(t, cs, "insert", "update")
	if fd, _ := evs[1]["fullDocument"].(bson.M); fd == nil || fd["n"] != int32(2) {
		t.Errorf("updateLookup fullDocument %v", evs[1]["fullDocument"])
	}
}

// testResume: resumeAfter and startAfter continue exactly after the
// token's event; startAtOperationTime starts at its clusterTime.
func testResume(t *testing.T, cl *mongo.Client) {
	ctx := ctxT(t)
	coll := cl.Database("cs5").Collection("c")
	cs := watch(t, coll, nil)
	for i := 1; i <= 4; i++ {
		_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}})
		must(t, err)
	}
	evs := expectOps(t, cs, "insert", "insert", "insert", "insert")
	tok := evs[1]["_id"]
	check := func(name string, o *options.ChangeStreamOptionsBuilder, first int32) {
		s := watch(t, coll, nil, o)
		for want := first; want <= 4; want++ {
			if ev := next(t, s); ev["documentKey"].(bson.M)["_id"] != want {
				t.Fatalf("%s: event %v, want _id %d", name, ev, want)
			}
		}
	}
	check("resumeAfter", options.ChangeStream().SetResumeAfter(tok), 3)
	check("startAfter", options.ChangeStream().SetStartAfter(tok), 3)
	ct := evs[1]["clusterTime"].(bson.Timestamp)
	check("startAtOperationTime", options.ChangeStream().SetStartAtOperationTime(&ct), 2)
}

// testInvalidate: a drop ends a collection stream with drop + invalidate
// and closes the cursor; startAfter the invalidate works, resumeAfter it
// fails with InvalidResumeToken.
func testInvalidate(t *testing.T, cl *mongo.Client) {
	ctx := ctxT(t)
	coll := cl.Database("cs6").Collection("c")
	_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 0}})
	must(t, err)
	cs := watch(t, coll, nil)
	must(t, coll.Drop(ctx))
	evs := expectOps(t, cs, "drop", "invalidate")
	if cs.Next(ctx) || cs.ID() != 0 {
		t.Errorf("stream still open after invalidate (id %d, err %v)", cs.ID(), cs.Err())
	}
	inv := evs[1]["_id"]
	_, err = coll.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetResumeAfter(inv))
	if codeOf(err) != 260 {
		t.Errorf("resumeAfter an invalidate: %v, want InvalidResumeToken (260)", err)
	}
	s := watch(t, coll, nil, options.ChangeStream().SetStartAfter(inv))
	_, err = coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 9}})
	must(t, err)
	if ev := next(t, s); ev["operationType"] != "insert" || ev["documentKey"].(bson.M)["_id"] != int32(9) {
		t.Errorf("startAfter the invalidate: %v", ev)
	}
}

// testPostBatchResumeToken: an idle stream's token advances past writes
// it does not return.
func testPostBatchResumeToken(t *testing.T, cl *mongo.Client) {
	ctx := ctxT(t)
	db := cl.Database("cs7")
	cs := watch(t, db.Collection("watched"), nil, options.ChangeStream().SetMaxAwaitTime(100e6))
	if cs.TryNext(ctx) {
		t.Fatal("unexpected event")
	}
	before := cs.ResumeToken()
	if before == nil {
		t.Fatal("no postBatchResumeToken on the first batch")
	}
	_, err := db.Collection("other").InsertOne(ctx, bson.D{{Key: "x", Value: 1}})
	must(t, err)
	var after bson.Raw
	for i := 0; i < 50; i++ {
		if cs.TryNext(ctx) {
			t.Fatal("unexpected event")
		}
		if after = cs.ResumeToken(); after.Lookup("_data").StringValue() > before.Lookup("_data").StringValue() {
			return
		}
	}
	t.Errorf("postBatchResumeToken did not advance: %v then %v", before, after)
}

func testHistoryLost(t *testing.T, cl *mongo.Client) {
	coll := cl.Database("cs8").Collection("c")
	_, err := coll.Watch(ctxT(t), mongo.Pipeline{}, options.ChangeStream().SetStartAtOperationTime(&bson.Timestamp{T: 1}))
	if codeOf(err) != 286 {
		t.Errorf("startAtOperationTime before the oplog: %v, want ChangeStreamHistoryLost (286)", err)
	}
}

// testStages: allowed stages apply to events, others are refused, and
// modifying _id ends the stream with ChangeStreamFatalError.
func testStages(t *testing.T, cl *mongo.Client) {
	ctx := ctxT(t)
	coll := cl.Database("cs9").Collection("c")
	_, err := coll.Watch(ctx, mongo.Pipeline{{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}}}}})
	if codeOf(err) != 20 {
		t.Errorf("$group after $changeStream: %v, want IllegalOperation (20)", err)
	}
	must(t, cl.Database("cs9").RunCommand(ctx, bson.D{{Key: "create", Value: "v"}, {Key: "viewOn", Value: "c"},
		{Key: "pipeline", Value: bson.A{}}}).Err())
	if _, err := cl.Database("cs9").Collection("v").Watch(ctx, mongo.Pipeline{}); codeOf(err) != 166 {
		t.Errorf("stream on a view: %v, want CommandNotSupportedOnView (166)", err)
	}
	cs := watch(t, coll, mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "fullDocument.keep", Value: true}}}},
		{{Key: "$project", Value: bson.D{{Key: "fullDocument.keep", Value: 1}, {Key: "operationType", Value: 1}}}}})
	_, err = coll.InsertMany(ctx, []any{bson.D{{Key: "keep", Value: false}}, bson.D{{Key: "keep", Value: true}, {Key: "y", Value: 1}}})
	must(t, err)
	ev := next(t, cs)
	if fd := ev["fullDocument"].(bson.M); fd["keep"] != true || fd["y"] != nil || ev["ns"] != nil {
		t.Errorf("$match/$project event %v", ev)
	}
	bad := watch(t, coll, mongo.Pipeline{{{Key: "$project", Value: bson.D{{Key: "_id", Value: 0}}}}})
	_, err = coll.InsertOne(ctx, bson.D{{Key: "z", Value: 1}})
	must(t, err)
	c2, cancel := ctxT(t), func() {}
	defer cancel()
	if bad.Next(c2) || codeOf(bad.Err()) != 280 {
		t.Errorf("_id removed by the pipeline: %v, want ChangeStreamFatalError (280)", bad.Err())
	}
}

// testReadConcern: a stream reads majority-committed changes; an explicit
// read concern other than majority is refused (InvalidOptions).
func testReadConcern(t *testing.T, cl *mongo.Client) {
	ctx := ctxT(t)
	db := cl.Database("cs10")
	local := db.Collection("c", options.Collection().SetReadConcern(readconcern.Local()))
	if _, err := local.Watch(ctx, mongo.Pipeline{}); codeOf(err) != 72 {
		t.Errorf("readConcern local: %v, want InvalidOptions (72)", err)
	}
	majority := db.Collection("c", options.Collection().SetReadConcern(readconcern.Majority()))
	cs := watch(t, majority, nil)
	_, err := majority.InsertOne(ctx, bson.D{{Key: "x", Value: 1}})
	must(t, err)
	expectOps(t, cs, "insert")
}
