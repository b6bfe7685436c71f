// Package failpoints tests MongoDB's named fail points relaydb implements
// (onPrimaryTransactionalWrite, maxTimeAlwaysTimeOut, stopReplProducer)
// against the real binary with the official Go driver.
package failpoints

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/tests/harness"
)

const testTimeout = 60 * time.Second

// failPoint sets a fail point on the client's primary (or direct member).
func failPoint(t *testing.T, c *mongo.Client, name string, mode any, data bson.D) {
	t.Helper()
	cmd := bson.D{{Key: "configureFailPoint", Value: name}, {Key: "mode", Value: mode}}
	if data != nil {
		cmd = append(cmd, bson.E{Key: "data", Value: data})
	}
	if err := c.Database("admin").RunCommand(context.Background(), cmd).Err(); err != nil {
		t.Fatalf("configureFailPoint %s: %v", name, err)
	}
	t.Cleanup(func() {
		off := bson.D{{Key: "configureFailPoint", Value: name}, {Key: "mode", Value: "off"}}
		_ = c.Database("admin").RunCommand(context.Background(), off).Err()
	})
}

// counter counts the commands a client starts, by name.
type counter struct{ inserts, fams atomic.Int32 }

func (n *counter) monitor() *event.CommandMonitor {
	return &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		switch e.CommandName {
		case "insert":
			n.inserts.Add(1)
		case "findAndModify":
			n.fams.Add(1)
		}
	}}
}

// oneMemberSet starts a one-member replica set and returns a retrying
// client and its command counter.
func oneMemberSet(t *testing.T) (*mongo.Client, *counter) {
	t.Helper()
	set := harness.StartSets(t, []cluster.Spec{{Name: "rsfp"}})[0]
	n := &counter{}
	c, err := mongo.Connect(options.Client().ApplyURI(set.URI()).SetRetryWrites(true).SetMonitor(n.monitor()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	return c, n
}

// TestOnPrimaryTransactionalWrite: the fail point closes the connection
// after the first attempt committed (the retry answers from the session
// record, so the document is inserted once) and fails both attempts
// before they commit (nothing written).
func TestOnPrimaryTransactionalWrite(t *testing.T) {
	c, n := oneMemberSet(t)
	// No deadline: with one (CSOT) the driver retries until it expires,
	// rather than once.
	ctx := context.Background()
	coll := c.Database("fp").Collection("txnwrite")

	failPoint(t, c, "onPrimaryTransactionalWrite", bson.D{{Key: "times", Value: 1}}, nil)
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: 11}}); err != nil {
		t.Fatalf("insert committed on first attempt: %v", err)
	}
	if got := n.inserts.Load(); got != 2 {
		t.Errorf("insert attempts = %d, want 2 (first closed, then retried)", got)
	}
	if k, _ := coll.CountDocuments(ctx, bson.D{}); k != 1 {
		t.Errorf("documents = %d, want 1", k)
	}

	failPoint(t, c, "onPrimaryTransactionalWrite", bson.D{{Key: "times", Value: 2}},
		bson.D{{Key: "failBeforeCommitExceptionCode", Value: 1}})
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 2}}); err == nil {
		t.Error("insert never committed: no error")
	}
	if k, _ := coll.CountDocuments(ctx, bson.D{{Key: "_id", Value: 2}}); k != 0 {
		t.Errorf("a write failed before commit is reflected (%d documents)", k)
	}

}

// TestMaxTimeAlwaysTimeOut: operations with maxTimeMS (and getMores of a
// cursor opened with one) fail with MaxTimeMSExpired; others run.
func TestMaxTimeAlwaysTimeOut(t *testing.T) {
	s := harness.Start(t)
	c := s.Client(t)
	ctx := context.Background() // no deadline: with one the driver sends maxTimeMS itself (CSOT)
	coll := c.Database("fp").Collection("maxtime")
	docs := make([]any, 10)
	for i := range docs {
		docs[i] = bson.D{{Key: "i", Value: i}}
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	db := c.Database("fp")
	cur, err := db.RunCommandCursor(ctx, bson.D{{Key: "find", Value: "maxtime"}, {Key: "batchSize", Value: 2}, {Key: "maxTimeMS", Value: 10000}})
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close(ctx)
	failPoint(t, c, "maxTimeAlwaysTimeOut", "alwaysOn", nil)

	err = db.RunCommand(ctx, bson.D{{Key: "find", Value: "maxtime"}, {Key: "maxTimeMS", Value: 1000}}).Err()
	if !isCode(err, 50) {
		t.Errorf("find with maxTimeMS: %v, want MaxTimeMSExpired (50)", err)
	}
	if err := coll.FindOne(ctx, bson.D{}).Err(); err != nil {
		t.Errorf("find without maxTimeMS: %v", err)
	}
	for cur.Next(ctx) {
	}
	if !isCode(cur.Err(), 50) {
		t.Errorf("getMore of a cursor opened with maxTimeMS: %v, want MaxTimeMSExpired (50)", cur.Err())
	}
}

// TestStopReplProducer: with the fail point on the secondary, a w:2 write
// times out waiting for it; once off, the secondary catches up.
func TestStopReplProducer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	c, secondary := twoMembers(ctx, t, "rsstop")
	failPoint(t, secondary, "stopReplProducer", "alwaysOn", nil)
	if code := insertW2(ctx, t, c, 500); code != 64 {
		t.Fatalf("w:2 insert with replication stopped: writeConcernError code %d, want WriteConcernFailed (64)", code)
	}
	off := bson.D{{Key: "configureFailPoint", Value: "stopReplProducer"}, {Key: "mode", Value: "off"}}
	if err := secondary.Database("admin").RunCommand(ctx, off).Err(); err != nil {
		t.Fatal(err)
	}
	if code := insertW2(ctx, t, c, 20000); code != 0 {
		t.Errorf("w:2 insert after the fail point is off: writeConcernError code %d", code)
	}
}

// insertW2 inserts a document with {w: 2, wtimeout} and returns its
// writeConcernError's code (0: none).
func insertW2(ctx context.Context, t *testing.T, c *mongo.Client, wtimeout int) int32 {
	t.Helper()
	err := c.Database("fp").RunCommand(ctx, bson.D{{Key: "insert", Value: "stop"},
		{Key: "documents", Value: bson.A{bson.D{{Key: "x", Value: 1}}}},
		{Key: "writeConcern", Value: bson.D{{Key: "w", Value: 2}, {Key: "wtimeout", Value: wtimeout}}}}).Err()
	var we mongo.WriteException
	switch {
	case err == nil:
		return 0
	case errors.As(err, &we) && we.WriteConcernError != nil:
		return int32(we.WriteConcernError.Code)
	}
	t.Fatal(err)
	return 0
}

// TestUnknownFailPoint: a fail point relaydb lacks is refused with BadValue.
func TestUnknownFailPoint(t *testing.T) {
	c := harness.Start(t).Client(t)
	err := c.Database("admin").RunCommand(context.Background(),
		bson.D{{Key: "configureFailPoint", Value: "noSuchFailPoint"}, {Key: "mode", Value: "alwaysOn"}}).Err()
	if !isCode(err, 2) {
		t.Errorf("unknown fail point: %v, want BadValue (2)", err)
	}
}

func isCode(err error, code int32) bool {
	var se mongo.ServerError
	return errors.As(err, &se) && se.HasErrorCode(int(code))
}
