package repl

import (
	"testing"
	"time"

	"github.com/relaydb/relaydb/internal/cluster"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// TestStepDown: replSetStepDown on the primary moves the primary to
// another member, the old one reports SECONDARY, and a client over the
// replicaSet URI routes its next write to the new primary on its own.
func TestStepDown(t *testing.T) {
	c := upSet(t, cluster.Spec{Data: 3})
	cl := connectSet(t, c)
	coll := cl.Database("repl_f").Collection("s", options.Collection().SetWriteConcern(writeconcern.Majority()))
	ctx, cancel := ctxT(30 * time.Second)
	defer cancel()
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "before"}}); err != nil {
		t.Fatalf("insert before step-down: %v", err)
	}
	old := primary(t, c, 5*time.Second)
	cmd := bson.D{{Key: "replSetStepDown", Value: 30}, {Key: "secondaryCatchUpPeriodSecs", Value: 5}}
	start := time.Now()
	// MongoDB may answer ok or drop the connection while stepping down.
	if err := c.RunAdmin(ctx, old, cmd, nil); err != nil {
		t.Logf("replSetStepDown on %s returned %v (a closed connection is allowed)", old.Name, err)
	}
	newP := waitNewPrimary(t, c, old, 10*time.Second)
	t.Logf("primary moved %s -> %s in %v", old.Name, newP.Name, time.Since(start).Round(time.Millisecond))
	hctx, hcancel := ctxT(3 * time.Second)
	h, err := c.Hello(hctx, old)
	hcancel()
	if err != nil || !h.Secondary || h.IsWritablePrimary {
		t.Errorf("old primary %s after step-down: hello %+v err %v, want secondary:true isWritablePrimary:false", old.Name, h, err)
	}
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "after"}}); err != nil {
		t.Fatalf("insert after step-down through the same client: %v", err)
	}
	n, err := direct(t, c, newP).Database("repl_f").Collection("s").CountDocuments(ctx, bson.D{})
	if err != nil || n != 2 {
		t.Fatalf("new primary %s holds %d documents (err %v), want 2", newP.Name, n, err)
	}
}
