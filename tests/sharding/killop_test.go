package sharding

import (
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestKillOpThroughRouter: currentOp through the router names a shard's
// operation "<shard>:<opid>", and killOp with that id interrupts it on
// the shard (an awaitData getMore ends with Interrupted, 11601); a
// number or a malformed id is refused.
func TestKillOpThroughRouter(t *testing.T) {
	tp := startTopo(t)
	cl, _ := connectRouter(t, tp)
	admin := cl.Database("admin")
	for _, name := range []string{"sh0", "sh1"} {
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "addShard", Value: seed(tp.shards[name])}}).Err(), "addShard %s", name)
	}
	db := cl.Database("ko")
	must(t, db.CreateCollection(ctxT(t), "log", options.CreateCollection().SetCapped(true).SetSizeInBytes(1<<20)), "create capped")
	_, err := db.Collection("log").InsertOne(ctxT(t), bson.D{{Key: "_id", Value: 1}})
	must(t, err, "insert")
	var res bson.Raw
	must(t, db.RunCommand(ctxT(t), bson.D{{Key: "find", Value: "log"}, {Key: "tailable", Value: true}, {Key: "awaitData", Value: true}}).Decode(&res), "tailable find")
	id := res.Lookup("cursor", "id").Int64()
	done := make(chan error, 1)
	go func() {
		done <- db.RunCommand(ctxT(t), bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "log"}, {Key: "maxTimeMS", Value: 60000}}).Err()
	}()
	var opid string
	for deadline := time.Now().Add(10 * time.Second); opid == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var cur struct{ Inprog []bson.M }
		must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "currentOp", Value: 1}, {Key: "command.getMore", Value: id}}).Decode(&cur), "currentOp")
		if len(cur.Inprog) == 1 {
			opid, _ = cur.Inprog[0]["opid"].(string)
		}
	}
	if !strings.HasPrefix(opid, primaryShard(t, cl, "ko")+":") {
		t.Fatalf("the getMore's opid through the router = %q, want <primary shard>:<opid>", opid)
	}
	var kill bson.M
	must(t, admin.RunCommand(ctxT(t), bson.D{{Key: "killOp", Value: 1}, {Key: "op", Value: opid}}).Decode(&kill), "killOp %s", opid)
	select {
	case err := <-done:
		if cmdCode(err) != 11601 {
			t.Fatalf("the killed getMore: %v, want Interrupted (11601)", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the getMore did not end after killOp through the router")
	}
	if err := admin.RunCommand(ctxT(t), bson.D{{Key: "killOp", Value: 1}, {Key: "op", Value: 5}}).Err(); err == nil {
		t.Fatal("killOp through the router with a number: no error")
	}
	if err := admin.RunCommand(ctxT(t), bson.D{{Key: "killOp", Value: 1}, {Key: "op", Value: "nocolon"}}).Err(); err == nil {
		t.Fatal("killOp through the router with a malformed id: no error")
	}
}
