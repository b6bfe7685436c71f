package failpoints

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/tests/harness"
)

// TestProfiler: level 2 records every command of its database in
// system.profile (op, ns, command, millis, ts, client); level 1 records
// only what is slower than slowms or matches the filter; level 0 stops;
// another database is not profiled.
func TestProfiler(t *testing.T) {
	c := harness.Start(t).Client(t)
	ctx := context.Background()
	db := c.Database("prof")
	coll := db.Collection("c")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	profile := func(cmd bson.D) {
		t.Helper()
		if err := db.RunCommand(ctx, cmd).Err(); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
	count := func(filter bson.D) int64 {
		t.Helper()
		n, err := db.Collection("system.profile").CountDocuments(ctx, filter)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	profile(bson.D{{Key: "profile", Value: 2}})
	find := func(comment string) {
		t.Helper()
		if err := db.RunCommand(ctx, bson.D{{Key: "find", Value: "c"}, {Key: "comment", Value: comment}}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	find("two")
	if err := c.Database("other").RunCommand(ctx, bson.D{{Key: "find", Value: "c"}, {Key: "comment", Value: "two"}}).Err(); err != nil {
		t.Fatal(err)
	}
	if n := count(bson.D{{Key: "op", Value: "query"}, {Key: "ns", Value: "prof.c"}, {Key: "command.comment", Value: "two"}}); n != 1 {
		t.Errorf("level 2: %d entries for the find, want 1", n)
	}
	var e bson.M
	if err := db.Collection("system.profile").FindOne(ctx, bson.D{{Key: "command.comment", Value: "two"}}).Decode(&e); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"millis", "ts", "client", "appName", "user", "allUsers"} {
		if _, ok := e[f]; !ok {
			t.Errorf("entry has no %s: %v", f, e)
		}
	}
	if n, _ := c.Database("other").Collection("system.profile").CountDocuments(ctx, bson.D{}); n != 0 {
		t.Errorf("an unprofiled database has %d entries", n)
	}

	profile(bson.D{{Key: "profile", Value: 1}, {Key: "slowms", Value: 100000}})
	find("slow")
	if n := count(bson.D{{Key: "command.comment", Value: "slow"}}); n != 0 {
		t.Errorf("level 1: a fast find was recorded (%d)", n)
	}
	profile(bson.D{{Key: "profile", Value: 1}, {Key: "filter", Value: bson.D{{Key: "command.comment", Value: "picked"}}}})
	find("picked")
	find("skipped")
	if n := count(bson.D{{Key: "command.comment", Value: "picked"}}); n != 1 {
		t.Errorf("level 1 with a filter: %d matching entries, want 1", n)
	}
	if n := count(bson.D{{Key: "command.comment", Value: "skipped"}}); n != 0 {
		t.Errorf("level 1 with a filter: %d entries the filter rejects", n)
	}
	var was struct {
		Was    int32  `bson:"was"`
		Filter bson.D `bson:"filter"`
	}
	if err := db.RunCommand(ctx, bson.D{{Key: "profile", Value: 0}, {Key: "filter", Value: "unset"}}).Decode(&was); err != nil || was.Was != 1 || was.Filter == nil {
		t.Errorf("profile 0: %+v %v, want was 1 and the filter", was, err)
	}
	find("off")
	if n := count(bson.D{{Key: "command.comment", Value: "off"}}); n != 0 {
		t.Errorf("level 0: %d entries", n)
	}
	var opts bson.M
	specs, err := db.ListCollectionSpecifications(ctx, bson.D{{Key: "name", Value: "system.profile"}})
	if err != nil || len(specs) != 1 {
		t.Fatalf("system.profile: %v %v", specs, err)
	}
	_ = bson.Unmarshal(specs[0].Options, &opts)
	if opts["capped"] != true {
		t.Errorf("system.profile options %v, want capped", opts)
	}
}
