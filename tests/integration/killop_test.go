package integration

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestKillOp: the opid currentOp reports is what killOp takes; killing an
// awaitData getMore ends it at once with Interrupted (11601) and closes
// its cursor; an opid that is not running is acknowledged; op is
// required.
func TestKillOp(t *testing.T) {
	_, c := startServer(t)
	ctx := tctx(t, 60*opTimeout)
	db := c.Database("killop")
	if err := db.CreateCollection(ctx, "log", options.CreateCollection().SetCapped(true).SetSizeInBytes(1<<20)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("log").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	id, done := blockedGetMore(ctx, t, db)
	opid := waitForOp(ctx, t, c.Database("admin"), bson.D{{Key: "command.getMore", Value: id}})
	start := time.Now()
	var res bson.M
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "killOp", Value: 1}, {Key: "op", Value: opid}}).Decode(&res); err != nil {
		t.Fatalf("killOp %v: %v", opid, err)
	}
	select {
	case err := <-done:
		wantCode(t, err, 11601, "the killed getMore")
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("the killed getMore ended %v after killOp", d)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the getMore did not end after killOp (it waits 60 s)")
	}
	err := db.RunCommand(ctx, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "log"}}).Err()
	wantCode(t, err, 43, "getMore on the killed getMore's cursor")

	// Not running: acknowledged. No op: refused.
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "killOp", Value: 1}, {Key: "op", Value: int32(1 << 30)}}).Err(); err != nil {
		t.Fatalf("killOp of an opid not running: %v", err)
	}
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "killOp", Value: 1}}).Err(); err == nil {
		t.Fatal("killOp without op: no error")
	}
}

// blockedGetMore opens a tailable awaitData cursor on db.log past its
// documents and runs a getMore that waits up to 60 s; done receives its
// error.
func blockedGetMore(ctx context.Context, t *testing.T, db *mongo.Database) (int64, chan error) {
	t.Helper()
	var res bson.Raw
	err := db.RunCommand(ctx, bson.D{{Key: "find", Value: "log"}, {Key: "tailable", Value: true}, {Key: "awaitData", Value: true}, {Key: "batchSize", Value: 10}}).Decode(&res)
	if err != nil {
		t.Fatalf("tailable find: %v", err)
	}
	id := res.Lookup("cursor", "id").Int64()
	if id == 0 {
		t.Fatalf("tailable find closed its cursor: %v", res)
	}
	done := make(chan error, 1)
	go func() {
		done <- db.RunCommand(ctx, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "log"}, {Key: "maxTimeMS", Value: 60000}}).Err()
	}()
	return id, done
}

// waitForOp polls currentOp until an operation matches filter and returns
// its opid.
func waitForOp(ctx context.Context, t *testing.T, admin *mongo.Database, filter bson.D) any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var res struct{ Inprog []bson.M }
		if err := admin.RunCommand(ctx, append(bson.D{{Key: "currentOp", Value: 1}}, filter...)).Decode(&res); err != nil {
			t.Fatalf("currentOp: %v", err)
		}
		if len(res.Inprog) == 1 {
			return res.Inprog[0]["opid"]
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no operation matching %v", filter)
	return nil
}

// TestKillOpAuth: under --auth a user may kill its own operation (from
// another connection); another user without killop is Unauthorized (13);
// root (hostManager's killop) may kill anyone's. currentOp {$ownOps:
// true} needs no inprog and lists only the caller's users' operations.
func TestKillOpAuth(t *testing.T) {
	s, root := rolesSetup(t, map[string]bson.A{"alice": {role("readWrite", "ko")}, "bob": {role("readWrite", "ko")}})
	ctx := tctx(t, 60*opTimeout)
	if err := root.Database("ko").CreateCollection(ctx, "log", options.CreateCollection().SetCapped(true).SetSizeInBytes(1<<20)); err != nil {
		t.Fatal(err)
	}
	if _, err := root.Database("ko").Collection("log").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	alice, alice2, bob := loginAs(t, s, "alice"), loginAs(t, s, "alice"), loginAs(t, s, "bob")
	kill := func(c *mongo.Client, opid any) error {
		return c.Database("admin").RunCommand(ctx, bson.D{{Key: "killOp", Value: 1}, {Key: "op", Value: opid}}).Err()
	}
	for _, killer := range []string{"alice", "root"} {
		id, done := blockedGetMore(ctx, t, alice.Database("ko"))
		opid := waitForOp(ctx, t, root.Database("admin"), bson.D{{Key: "command.getMore", Value: id}})
		wantCode(t, kill(bob, opid), 13, "bob kills alice's getMore")
		// $ownOps: each user sees its own operations without inprog.
		own := func(c *mongo.Client) int {
			var res struct{ Inprog []bson.M }
			err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "currentOp", Value: 1}, {Key: "$ownOps", Value: true}, {Key: "command.getMore", Value: id}}).Decode(&res)
			if err != nil {
				t.Fatalf("currentOp $ownOps: %v", err)
			}
			return len(res.Inprog)
		}
		if a, b := own(alice2), own(bob); a != 1 || b != 0 {
			t.Fatalf("currentOp $ownOps: alice sees %d of her getMores, bob %d; want 1 and 0", a, b)
		}
		wantCode(t, bob.Database("admin").RunCommand(ctx, bson.D{{Key: "currentOp", Value: 1}}).Err(), 13, "currentOp without inprog")
		by := map[string]*mongo.Client{"alice": alice2, "root": root}[killer]
		if err := kill(by, opid); err != nil {
			t.Fatalf("%s kills alice's getMore: %v", killer, err)
		}
		select {
		case err := <-done:
			wantCode(t, err, 11601, "alice's getMore killed by "+killer)
		case <-time.After(20 * time.Second):
			t.Fatalf("alice's getMore did not end after %s's killOp", killer)
		}
	}
}
