package js

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/tests/harness"
)

// TestWhere: $where in its three forms, with an index, and in the filters
// of count, distinct, update, delete and findAndModify.
func TestWhere(t *testing.T) {
	db := harness.Start(t).Client(t).Database("js")
	coll := seeded(t, db, 10)
	if _, err := coll.Indexes().CreateOne(tctx(t), mongo.IndexModel{Keys: bson.D{{Key: "x", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		filter bson.D
		want   []int32
	}{
		{"expression", bson.D{{Key: "$where", Value: "this.x < 3"}}, []int32{0, 1, 2}},
		{"body", bson.D{{Key: "$where", Value: "return obj.x == 5"}}, []int32{5}},
		{"function", bson.D{{Key: "$where", Value: "function() { return this.x > 7 }"}}, []int32{8, 9}},
		{"Code", bson.D{{Key: "$where", Value: bson.JavaScript("function() { return this._id % 4 == 0 }")}}, []int32{0, 4, 8}},
		{"indexed", bson.D{{Key: "x", Value: bson.D{{Key: "$gte", Value: 5}}}, {Key: "$where", Value: "this.x % 2 == 0"}}, []int32{6, 8}},
		{"under $or", bson.D{{Key: "$or", Value: bson.A{bson.D{{Key: "$where", Value: "this.x == 1"}}, bson.D{{Key: "x", Value: 9}}}}}, []int32{1, 9}},
		{"sleep", bson.D{{Key: "$where", Value: "sleep(1); return this.x == 3"}}, []int32{3}},
	} {
		if got := ids(t, coll, tc.filter); !equalIDs(got, tc.want) {
			t.Errorf("%s: %v = %v, want %v", tc.name, tc.filter, got, tc.want)
		}
	}
	var count struct{ N int32 }
	if err := db.RunCommand(tctx(t), bson.D{{Key: "count", Value: coll.Name()}, {Key: "query", Value: bson.D{{Key: "$where", Value: "this.x < 4"}}}}).Decode(&count); err != nil || count.N != 4 {
		t.Errorf("count: %d, %v; want 4", count.N, err)
	}
	dist := coll.Distinct(tctx(t), "x", bson.D{{Key: "$where", Value: "this.x >= 8"}})
	var xs []int32
	if err := dist.Decode(&xs); err != nil || len(xs) != 2 {
		t.Errorf("distinct: %v, %v; want [8 9]", xs, err)
	}
	up, err := coll.UpdateMany(tctx(t), bson.D{{Key: "$where", Value: "this.x < 2"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: 1}}}})
	if err != nil || up.ModifiedCount != 2 {
		t.Errorf("updateMany: %+v, %v; want 2 modified", up, err)
	}
	var fam bson.D
	err = coll.FindOneAndUpdate(tctx(t), bson.D{{Key: "$where", Value: "this.x == 7"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "z", Value: 1}}}},
		options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&fam)
	if err != nil || field(fam, "z") != int32(1) {
		t.Errorf("findAndModify: %v, %v", fam, err)
	}
	del, err := coll.DeleteMany(tctx(t), bson.D{{Key: "$where", Value: "this.y == 1"}})
	if err != nil || del.DeletedCount != 2 {
		t.Errorf("deleteMany: %+v, %v; want 2 deleted", del, err)
	}
	if got := ids(t, coll, bson.D{}); len(got) != 8 {
		t.Errorf("after delete: %v", got)
	}
}

// TestWhereErrors: mongod's codes for bad $where clauses and failing
// JavaScript.
func TestWhereErrors(t *testing.T) {
	db := harness.Start(t).Client(t).Database("js")
	coll := seeded(t, db, 3)
	find := func(filter bson.D) error {
		cur, err := coll.Find(tctx(t), filter)
		if err == nil {
			var docs []bson.D
			err = cur.All(tctx(t), &docs)
		}
		return err
	}
	w := func(v any) bson.D { return bson.D{{Key: "$where", Value: v}} }
	wantCode(t, "syntax error", find(w("this.x <")), 139, "SyntaxError")
	wantCode(t, "throw", find(w("if (this.x == 1) throw new Error('boom'); return true")), 139, "boom")
	wantCode(t, "stack overflow", find(w("function f() { return f() }; return f()")), 139, "too much recursion")
	wantCode(t, "CodeWScope", find(w(bson.CodeWithScope{Code: "this.x < i", Scope: bson.D{{Key: "i", Value: 3}}})), 4649201, "CodeWScope")
	wantCode(t, "bad type", find(w(5)), 2, "$where got bad type")
	wantCode(t, "empty", find(w("")), 2, "code for $where cannot be empty")
	wantCode(t, "on a field", find(bson.D{{Key: "x", Value: w("true")}}), 2, "$where cannot be applied to a field")
	wantCode(t, "in $elemMatch", find(bson.D{{Key: "a", Value: bson.D{{Key: "$elemMatch", Value: w("true")}}}}), 2, "top-level")
	_, err := coll.Aggregate(tctx(t), mongo.Pipeline{{{Key: "$match", Value: w("true")}}})
	wantCode(t, "aggregate $match", err, 2, "$where is not allowed in this context")
	_, err = coll.DeleteMany(tctx(t), w("throw 'no'"))
	wantCode(t, "delete with a throwing $where", err, 139, "no")
	err = db.CreateCollection(tctx(t), "validated", options.CreateCollection().SetValidator(w("true")))
	wantCode(t, "validator", err, 2, "$where is not allowed in this context")
	// The server is fine and nothing was deleted.
	if got := ids(t, coll, w("true")); len(got) != 3 {
		t.Errorf("after the errors: %v", got)
	}
}

// TestWhereMaxTime: maxTimeMS interrupts a $where that loops or sleeps
// (MaxTimeMSExpired, 50) promptly, and the server stays healthy.
func TestWhereMaxTime(t *testing.T) {
	srv := harness.Start(t)
	db := srv.Client(t).Database("js")
	coll := seeded(t, db, 2)
	for _, code := range []string{"while (true) {}", "sleep(60 * 1000); return true", "function() { for (;;) { this.x++; } }"} {
		start := time.Now()
		err := db.RunCommand(tctx(t), bson.D{{Key: "find", Value: coll.Name()}, {Key: "filter", Value: bson.D{{Key: "$where", Value: code}}},
			{Key: "maxTimeMS", Value: 300}}).Err()
		wantCode(t, code, err, 50, "exceeded time limit")
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: interrupted after %v", code, d)
		}
	}
	for _, cmd := range []bson.D{
		{{Key: "count", Value: coll.Name()}, {Key: "query", Value: bson.D{{Key: "$where", Value: "while (true) {}"}}}, {Key: "maxTimeMS", Value: 200}},
		{{Key: "distinct", Value: coll.Name()}, {Key: "key", Value: "x"}, {Key: "query", Value: bson.D{{Key: "$where", Value: "while (true) {}"}}}, {Key: "maxTimeMS", Value: 200}},
	} {
		start := time.Now()
		wantCode(t, cmd[0].Key, db.RunCommand(tctx(t), cmd).Err(), 50, "")
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: interrupted after %v", cmd[0].Key, d)
		}
	}
	res := db.RunCommand(tctx(t), bson.D{{Key: "update", Value: coll.Name()}, {Key: "updates", Value: bson.A{bson.D{
		{Key: "q", Value: bson.D{{Key: "$where", Value: "while (true) {}"}}}, {Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: 1}}}}}}}},
		{Key: "maxTimeMS", Value: 200}})
	var reply bson.M
	if err := res.Decode(&reply); err != nil {
		wantCode(t, "update with maxTimeMS", err, 50, "")
	} else if we, _ := reply["writeErrors"].(bson.A); len(we) != 1 || we[0].(bson.M)["code"] != int32(50) {
		t.Errorf("update with maxTimeMS: %v", reply)
	}
	// maxTimeMS counts processing time: a cursor's idle time between
	// getMores does not use it up.
	var first struct {
		Cursor struct {
			ID int64 `bson:"id"`
		} `bson:"cursor"`
	}
	err := db.RunCommand(tctx(t), bson.D{{Key: "find", Value: coll.Name()}, {Key: "filter", Value: bson.D{{Key: "$where", Value: "true"}}},
		{Key: "batchSize", Value: 1}, {Key: "maxTimeMS", Value: 200}}).Decode(&first)
	if err != nil || first.Cursor.ID == 0 {
		t.Fatalf("find batchSize 1: %+v, %v", first, err)
	}
	time.Sleep(400 * time.Millisecond)
	if err := db.RunCommand(tctx(t), bson.D{{Key: "getMore", Value: first.Cursor.ID}, {Key: "collection", Value: coll.Name()}}).Err(); err != nil {
		t.Errorf("getMore after idle time past maxTimeMS: %v", err)
	}
	// Healthy: ping and a quick $where on a new and an old connection.
	if err := db.RunCommand(tctx(t), bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
		t.Fatalf("ping after interrupts: %v", err)
	}
	if got := ids(t, coll, bson.D{{Key: "$where", Value: "this.x == 1"}}); !equalIDs(got, []int32{1}) {
		t.Errorf("after interrupts: %v", got)
	}
	if got := ids(t, srv.Client(t).Database("js").Collection(coll.Name()), bson.D{{Key: "$where", Value: "true"}}); len(got) != 2 {
		t.Errorf("new client after interrupts: %v", got)
	}
}

// TestNoScripting: with --noscripting (or security.javascriptEnabled:
// false) $where, $function and $accumulator answer as a mongod without a
// script engine, while other queries work.
func TestNoScripting(t *testing.T) {
	db := harness.Start(t, harness.WithArgs("--noscripting")).Client(t).Database("js")
	coll := seeded(t, db, 3)
	_, err := coll.Find(tctx(t), bson.D{{Key: "$where", Value: "true"}})
	wantCode(t, "$where", err, 6108304, "no globalScriptEngine in $where parsing")
	_, err = coll.Aggregate(tctx(t), mongo.Pipeline{{{Key: "$project", Value: bson.D{{Key: "y", Value: bson.D{{Key: "$function", Value: bson.D{
		{Key: "body", Value: "function() { return 1 }"}, {Key: "args", Value: bson.A{}}, {Key: "lang", Value: "js"}}}}}}}}})
	wantCode(t, "$function", err, 31264, "javascript engine")
	if got := ids(t, coll, bson.D{{Key: "x", Value: 1}}); !equalIDs(got, []int32{1}) {
		t.Errorf("plain find under --noscripting: %v", got)
	}
	var opts struct {
		Parsed struct {
			Security struct {
				JavascriptEnabled *bool `bson:"javascriptEnabled"`
			} `bson:"security"`
		} `bson:"parsed"`
	}
	err = db.Client().Database("admin").RunCommand(tctx(t), bson.D{{Key: "getCmdLineOpts", Value: 1}}).Decode(&opts)
	if js := opts.Parsed.Security.JavascriptEnabled; err != nil || js == nil || *js {
		t.Errorf("getCmdLineOpts: parsed.security.javascriptEnabled = %v (%v), want false", js, err)
	}
}

// TestWhereTailable: $where filters a tailable cursor on a capped
// collection, for the documents there and those inserted later.
func TestWhereTailable(t *testing.T) {
	db := harness.Start(t).Client(t).Database("js")
	if err := db.CreateCollection(tctx(t), "capped", options.CreateCollection().SetCapped(true).SetSizeInBytes(1<<20)); err != nil {
		t.Fatal(err)
	}
	coll := db.Collection("capped")
	insertX(t, coll, 4)
	cur, err := coll.Find(tctx(t), bson.D{{Key: "$where", Value: "this.x % 2 == 1"}}, options.Find().SetCursorType(options.Tailable))
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close(tctx(t))
	var got []int32
	for len(got) < 2 && cur.TryNext(tctx(t)) {
		got = append(got, cur.Current.Lookup("x").Int32())
	}
	if _, err := coll.InsertMany(tctx(t), []any{bson.D{{Key: "_id", Value: 4}, {Key: "x", Value: int32(4)}}, bson.D{{Key: "_id", Value: 5}, {Key: "x", Value: int32(5)}}}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20 && len(got) < 3; i++ {
		if cur.TryNext(tctx(t)) {
			got = append(got, cur.Current.Lookup("x").Int32())
		}
	}
	if !equalIDs(got, []int32{1, 3, 5}) || cur.Err() != nil {
		t.Errorf("tailable $where: %v (%v), want [1 3 5]", got, cur.Err())
	}
}

// TestWhereKillOp: killOp interrupts a find whose $where is running
// (Interrupted, 11601), promptly.
func TestWhereKillOp(t *testing.T) {
	cl := harness.Start(t).Client(t)
	db := cl.Database("js")
	coll := seeded(t, db, 1)
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		done <- db.RunCommand(context.Background(), bson.D{{Key: "find", Value: coll.Name()}, {Key: "filter", Value: bson.D{{Key: "$where", Value: "sleep(20000); return true"}}}}).Err()
	}()
	var opid any
	for deadline := time.Now().Add(10 * time.Second); opid == nil && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var res struct{ Inprog []bson.M }
		if err := cl.Database("admin").RunCommand(tctx(t), bson.D{{Key: "currentOp", Value: 1}, {Key: "command.find", Value: coll.Name()}}).Decode(&res); err != nil {
			t.Fatalf("currentOp: %v", err)
		}
		if len(res.Inprog) == 1 {
			opid = res.Inprog[0]["opid"]
		}
	}
	if opid == nil {
		t.Fatal("the find does not show in currentOp")
	}
	if err := cl.Database("admin").RunCommand(tctx(t), bson.D{{Key: "killOp", Value: 1}, {Key: "op", Value: opid}}).Err(); err != nil {
		t.Fatalf("killOp: %v", err)
	}
	select {
	case err := <-done:
		wantCode(t, "killed find", err, 11601, "interrupted")
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("interrupted after %v", d)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the killed find still runs")
	}
}
