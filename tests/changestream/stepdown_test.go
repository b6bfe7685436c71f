package changestream

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cluster"
)

// TestChangeStreamStepDown: a collection stream opened on the primary
// sees every write made before and after the primary steps down, once
// each and in order (the driver resumes if the server ends the cursor).
func TestChangeStreamStepDown(t *testing.T) {
	set, cl := startSet(t, "rscsdown")
	ctx := ctxT(t)
	coll := cl.Database("csdown").Collection("c")
	cs := watch(t, coll, nil)
	insert := func(from, to int) {
		for i := from; i <= to; i++ {
			if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}}); err != nil {
				t.Fatalf("insert %d: %v", i, err)
			}
		}
	}
	insert(1, 3)
	for want := int32(1); want <= 2; want++ {
		if ev := next(t, cs); ev["documentKey"].(bson.M)["_id"] != want {
			t.Fatalf("before step-down: %v, want _id %d", ev, want)
		}
	}
	old, err := set.Primary(ctx)
	must(t, err)
	direct, err := set.Client(old)
	must(t, err)
	err = direct.Database("admin").RunCommand(ctx, bson.D{{Key: "replSetStepDown", Value: 30},
		{Key: "secondaryCatchUpPeriodSecs", Value: 10}}).Err()
	if err != nil {
		t.Logf("replSetStepDown: %v (a closed connection is allowed)", err)
	}
	waitNewPrimary(t, set, old.Name)
	insert(4, 6)
	for want := int32(3); want <= 6; want++ {
		if ev := next(t, cs); ev["documentKey"].(bson.M)["_id"] != want {
			t.Fatalf("after step-down: %v, want _id %d", ev, want)
		}
	}
	short, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
	defer cancel()
	if cs.Next(short) {
		t.Errorf("an extra event after step-down: %v", cs.Current)
	}
}

// waitNewPrimary waits until a member other than old is primary.
func waitNewPrimary(t *testing.T, set *cluster.Cluster, old string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m, err := set.Primary(context.Background()); err == nil && m.Name != old {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no new primary after %s stepped down", old)
}
