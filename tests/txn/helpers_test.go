// Package txn tests multi-document transactions on the real binary: a
// 3-member replica set started with the harness, driven by the official
// Go driver's sessions (StartTransaction / CommitTransaction / ...).
package txn

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/tests/harness"
)

// upSet starts a 3-member set, stopped with t.
func upSet(t *testing.T) *cluster.Cluster { return harnessSet(t) }

// harnessSet starts a 3-member set, stopped with t (tests and benchmarks).
func harnessSet(t testing.TB) *cluster.Cluster {
	t.Helper()
	return harness.StartSets(t, []cluster.Spec{{Name: "rs0", Data: 3}})[0]
}

// connect returns a client to the set (majority writes), closed with t.
func connect(t testing.TB, c *cluster.Cluster) *mongo.Client {
	t.Helper()
	o := options.Client().ApplyURI(c.URI()).SetServerSelectionTimeout(20 * time.Second).
		SetWriteConcern(writeconcern.Majority())
	cl, err := mongo.Connect(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Disconnect(context.Background()) })
	return cl
}

func ctxT(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}

// codeOf returns a server error's code (0 if none).
func codeOf(err error) int {
	var ce mongo.CommandError
	if errors.As(err, &ce) {
		return int(ce.Code)
	}
	var we mongo.WriteException
	if errors.As(err, &we) && len(we.WriteErrors) > 0 {
		return we.WriteErrors[0].Code
	}
	return 0
}

// hasLabel reports whether err carries the error label.
func hasLabel(err error, label string) bool {
	var le mongo.LabeledError
	return errors.As(err, &le) && le.HasErrorLabel(label)
}

// ids returns the sorted _ids of the documents coll's filter matches,
// read in sess (nil: outside a session's transaction).
func ids(t *testing.T, ctx context.Context, coll *mongo.Collection, filter any) []int32 {
	t.Helper()
	cur, err := coll.Find(ctx, filter, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatalf("find: %v", err)
	}
	var docs []struct {
		ID int32 `bson:"_id"`
	}
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatalf("find: %v", err)
	}
	out := []int32{}
	for _, d := range docs {
		out = append(out, d.ID)
	}
	return out
}
