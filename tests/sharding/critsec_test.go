package sharding

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestCriticalSection: while a shard holds a namespace's critical section
// (as during a router's shardCollection or drop), a routed write to it
// waits and completes once the section is released; a client connected
// straight to the shard is not held; shardCollection and drop leave no
// section behind; a second enter conflicts (117).
func TestCriticalSection(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "enableSharding", Value: "cs"}, {Key: "primaryShard", Value: "sh0"}}).Err(), "enableSharding")
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "cs.c"}, {Key: "key", Value: bson.D{{Key: "x", Value: 1}}}}).Err(), "shardCollection")
	coll := cl.Database("cs").Collection("c")
	_, err := coll.InsertOne(ctxT(t), bson.D{{Key: "x", Value: 1}})
	must(t, err, "insert after shardCollection (no section left behind)")

	sh0 := tp.shardClient(t, "sh0").Database("admin")
	section := func(action string) error {
		return sh0.RunCommand(ctxT(t), bson.D{{Key: "_shardsvrCriticalSection", Value: "cs.c"}, {Key: "action", Value: action}}).Err()
	}
	must(t, section("enter"), "enter")
	if err := section("enter"); err == nil || !isCode(err, 117) {
		t.Fatalf("second enter: %v, want ConflictingOperationInProgress 117", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := coll.InsertOne(ctxT(t), bson.D{{Key: "x", Value: 2}})
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("a routed insert completed (%v) while sh0 held the section", err)
	case <-time.After(500 * time.Millisecond):
	}
	_, err = tp.shardClient(t, "sh0").Database("cs").Collection("c").InsertOne(ctxT(t), bson.D{{Key: "x", Value: 3}})
	must(t, err, "an insert straight to the shard is not held")
	must(t, section("exit"), "exit")
	select {
	case err := <-done:
		must(t, err, "the held insert after the exit")
	case <-time.After(10 * time.Second):
		t.Fatal("the held insert did not complete after the exit")
	}

	must(t, coll.Drop(ctxT(t)), "drop the sharded collection")
	_, err = coll.InsertOne(ctxT(t), bson.D{{Key: "x", Value: 4}})
	must(t, err, "insert after drop (no section left behind)")
	if n, err := coll.CountDocuments(ctxT(t), bson.D{}); err != nil || n != 1 {
		t.Fatalf("after drop and one insert: %d documents (%v), want 1", n, err)
	}
}

// isCode reports a command error with the given code.
func isCode(err error, code int32) bool {
	var ce interface{ HasErrorCode(int) bool }
	if e, ok := err.(interface{ HasErrorCode(int) bool }); ok {
		ce = e
	}
	return ce != nil && ce.HasErrorCode(int(code))
}
