package txn

import (
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/relaydb/relaydb/tests/harness"
)

// TestThroughRouter: a transaction on an unsharded collection runs on its
// database's shard through the router: its writes are invisible until the
// commit, and an aborted one leaves nothing.
func TestThroughRouter(t *testing.T) {
	cl := harness.OneShardCluster(t, "")
	ctx, cancel := ctxT(60 * time.Second)
	defer cancel()
	coll := cl.Database("rt").Collection("c")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(0)}}); err != nil {
		t.Fatal(err)
	}
	sess, err := cl.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	for _, commit := range []bool{false, true} {
		if err := sess.StartTransaction(); err != nil {
			t.Fatal(err)
		}
		sc := mongo.NewSessionContext(ctx, sess)
		for i := 1; i <= 3; i++ {
			if _, err := coll.InsertOne(sc, bson.D{{Key: "_id", Value: int32(i)}}); err != nil {
				t.Fatalf("insert through the router in a transaction: %v", err)
			}
		}
		if _, err := coll.DeleteOne(sc, bson.D{{Key: "_id", Value: int32(0)}}); err != nil {
			t.Fatal(err)
		}
		if got := ids(t, sc, coll, bson.D{}); !slices.Equal(got, []int32{1, 2, 3}) {
			t.Fatalf("inside the transaction: %v", got)
		}
		if got := ids(t, ctx, coll, bson.D{}); !slices.Equal(got, []int32{0}) {
			t.Fatalf("outside before the end: %v", got)
		}
		want := []int32{0}
		if commit {
			err, want = sess.CommitTransaction(ctx), []int32{1, 2, 3}
		} else {
			err = sess.AbortTransaction(ctx)
		}
		if err != nil {
			t.Fatalf("commit %v: %v", commit, err)
		}
		if got := ids(t, ctx, coll, bson.D{}); !slices.Equal(got, want) {
			t.Fatalf("after commit=%v: %v, want %v", commit, got, want)
		}
	}
	// An error the router answers itself (its fail point) carries the
	// transaction labels a shard's would.
	fp := bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: bson.D{{Key: "times", Value: 1}}},
		{Key: "data", Value: bson.D{{Key: "failCommands", Value: bson.A{"insert"}}, {Key: "errorCode", Value: 112}}}}
	if err := cl.Database("admin").RunCommand(ctx, fp).Err(); err != nil {
		t.Fatal(err)
	}
	if err := sess.StartTransaction(); err != nil {
		t.Fatal(err)
	}
	_, err = coll.InsertOne(mongo.NewSessionContext(ctx, sess), bson.D{{Key: "_id", Value: int32(9)}})
	if codeOf(err) != 112 || !hasLabel(err, "TransientTransactionError") {
		t.Fatalf("a router fail point's WriteConflict in a transaction: %v, want 112 with TransientTransactionError", err)
	}
	_ = sess.AbortTransaction(ctx)
}
