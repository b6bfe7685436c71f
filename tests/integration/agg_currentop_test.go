package integration

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// appClient connects to srv with an application name.
func appClient(t *testing.T, uri, app string) *mongo.Client {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(uri).SetAppName(app))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Disconnect(tctx(t, opTimeout)) })
	return c
}

// inprog runs currentOp with filter on admin.
func inprog(t *testing.T, c *mongo.Client, filter bson.D) []bson.D {
	t.Helper()
	var reply struct{ Inprog []bson.D }
	cmd := append(bson.D{{Key: "currentOp", Value: 1}}, filter...)
	if err := c.Database("admin").RunCommand(tctx(t, opTimeout), cmd).Decode(&reply); err != nil {
		t.Fatalf("currentOp: %v", err)
	}
	return reply.Inprog
}

func opField(d bson.D, k string) any {
	for _, e := range d {
		if e.Key == k {
			return e.Value
		}
	}
	return nil
}

// TestCurrentOp: currentOp and $currentOp list the running commands, the
// asking one included, with MongoDB's fields; another connection's
// blocked command shows up while it runs.
func TestCurrentOp(t *testing.T) {
	srv, _ := startServer(t)
	c := appClient(t, srv.URI(), "aggtest")

	self := inprog(t, c, bson.D{{Key: "command.currentOp", Value: bson.D{{Key: "$exists", Value: true}}}})
	if len(self) != 1 {
		t.Fatalf("currentOp does not list itself once: %v", self)
	}
	op := self[0]
	for k, want := range map[string]any{"op": "command", "ns": "admin.$cmd", "active": true, "appName": "aggtest", "type": "op"} {
		if got := opField(op, k); got != want {
			t.Errorf("currentOp %s = %v, want %v (%v)", k, got, want, op)
		}
	}
	if _, ok := opField(op, "opid").(int32); !ok || opField(op, "client") == nil || opField(op, "secs_running") == nil {
		t.Errorf("currentOp lacks opid/client/secs_running: %v", op)
	}

	// A hello waiting for a topology change (a standalone waits the full
	// maxAwaitTimeMS) on another connection.
	var hello bson.D
	if err := c.Database("admin").RunCommand(tctx(t, opTimeout), bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
		t.Fatal(err)
	}
	waiter := appClient(t, srv.URI(), "waiter")
	done := make(chan error, 1)
	go func() {
		done <- waiter.Database("admin").RunCommand(tctx(t, opTimeout), bson.D{{Key: "hello", Value: 1},
			{Key: "topologyVersion", Value: opField(hello, "topologyVersion")}, {Key: "maxAwaitTimeMS", Value: int64(3000)}}).Err()
	}()
	filter := bson.D{{Key: "appName", Value: "waiter"}, {Key: "command.maxAwaitTimeMS", Value: int64(3000)}}
	found := false
	for deadline := time.Now().Add(2 * time.Second); !found && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		found = len(inprog(t, c, filter)) == 1
	}
	if !found {
		t.Fatal("currentOp never showed the other connection's waiting hello")
	}
	if err := <-done; err != nil {
		t.Fatalf("awaitable hello: %v", err)
	}
	if n := len(inprog(t, c, filter)); n != 0 {
		t.Fatalf("the finished hello is still listed (%d)", n)
	}

	// $currentOp: first stage of {aggregate: 1} on admin only.
	cur, err := c.Database("admin").Aggregate(tctx(t, opTimeout), mongo.Pipeline{{{Key: "$currentOp", Value: bson.D{{Key: "allUsers", Value: true}}}},
		{{Key: "$match", Value: bson.D{{Key: "command.aggregate", Value: 1}}}}})
	if err != nil {
		t.Fatal(err)
	}
	var ops []bson.D
	if err := cur.All(tctx(t, opTimeout), &ops); err != nil || len(ops) != 1 || opField(ops[0], "appName") != "aggtest" {
		t.Fatalf("$currentOp: %v, %v", ops, err)
	}
	_, err = c.Database("test").Aggregate(tctx(t, opTimeout), mongo.Pipeline{{{Key: "$currentOp", Value: bson.D{}}}})
	wantCode(t, err, 73, "$currentOp outside admin")
	_, err = c.Database("admin").Collection("x").Aggregate(tctx(t, opTimeout), mongo.Pipeline{{{Key: "$currentOp", Value: bson.D{}}}})
	wantCode(t, err, 73, "$currentOp on a collection")
	err = c.Database("test").RunCommand(tctx(t, opTimeout), bson.D{{Key: "currentOp", Value: 1}}).Err()
	wantCode(t, err, 13, "currentOp outside admin")
}

// TestIndexStats: $indexStats lists a collection's indexes with host and
// accesses; $planCacheStats answers with no documents.
func TestIndexStats(t *testing.T) {
	srv, c := startServer(t)
	coll := freshColl(t, c, "ixstats")
	if _, err := coll.Indexes().CreateOne(tctx(t, opTimeout), mongo.IndexModel{Keys: bson.D{{Key: "a", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	cur, err := coll.Aggregate(tctx(t, opTimeout), mongo.Pipeline{{{Key: "$indexStats", Value: bson.D{}}}, {{Key: "$sort", Value: bson.D{{Key: "name", Value: 1}}}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []bson.D
	if err := cur.All(tctx(t, opTimeout), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || opField(got[0], "name") != "_id_" || opField(got[1], "name") != "a_1" {
		t.Fatalf("$indexStats: %v", got)
	}
	acc, _ := opField(got[1], "accesses").(bson.D)
	if _, ok := opField(acc, "ops").(int64); !ok || opField(acc, "since") == nil || opField(got[1], "host") == "" {
		t.Fatalf("$indexStats accesses/host: %v", got[1])
	}
	_ = srv
	cur, err = coll.Aggregate(tctx(t, opTimeout), mongo.Pipeline{{{Key: "$planCacheStats", Value: bson.D{}}}})
	if err != nil {
		t.Fatal(err)
	}
	if cur.Next(tctx(t, opTimeout)) {
		t.Fatalf("$planCacheStats returned %v", cur.Current)
	}
}
