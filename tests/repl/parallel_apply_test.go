package repl

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"

	"github.com/relaydb/relaydb/internal/cluster"
)

// Catch-up in batches under kill -9 is TestParallelApplyKilledMidBatch
// (parallel_writers_test.go), which fails unless a kill lands mid
// catch-up; the helpers below serve it.

// selfTS is the ts of the last entry m applied (zero if it does not answer).
func selfTS(t *testing.T, c *cluster.Cluster, m *cluster.Member) bson.Timestamp {
	t.Helper()
	ctx, cancel := ctxT(2 * time.Second)
	defer cancel()
	ts, _ := cluster.SelfOpTime(ctx, direct(t, c, m))
	return ts
}

// writeWhileDown inserts n documents in batches, then moves unique values
// between documents, updates arrays and deletes some, all w:1.
func writeWhileDown(t *testing.T, ctx context.Context, coll *mongo.Collection, n int) {
	t.Helper()
	w1 := options.InsertMany().SetOrdered(true)
	for lo := 0; lo < n; lo += 1000 {
		docs := make([]any, 0, 1000)
		for i := lo; i < lo+1000 && i < n; i++ {
			docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "u", Value: int32(i)},
				{Key: "tags", Value: bson.A{i % 7, i % 11}}, {Key: "pad", Value: "0123456789abcdef0123456789abcdef"}})
		}
		if _, err := coll.InsertMany(ctx, docs, w1); err != nil {
			t.Fatalf("insert: %v", err)
		}
	}
	for i := 0; i < 300; i++ { // swap u between i and i+1 through a free value
		a, b := int32(2*i), int32(2*i+1)
		for _, step := range []struct {
			id any
			u  int32
		}{{a, int32(-1)}, {b, a}, {a, b}} {
			if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: step.id}}, bson.D{{Key: "$set", Value: bson.D{{Key: "u", Value: step.u}}}}); err != nil {
				t.Fatalf("swap: %v", err)
			}
		}
	}
	if _, err := coll.UpdateMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$mod", Value: bson.A{5, 0}}}}},
		bson.D{{Key: "$push", Value: bson.D{{Key: "tags", Value: "five"}}}}); err != nil {
		t.Fatalf("updateMany: %v", err)
	}
	if _, err := coll.DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$mod", Value: bson.A{13, 0}}}}}); err != nil {
		t.Fatalf("deleteMany: %v", err)
	}
}

// waitSameDocs waits (bounded) until sec holds exactly p's documents of
// papply.c, in _id order.
func waitSameDocs(t *testing.T, c *cluster.Cluster, p, sec *cluster.Member, d time.Duration) {
	t.Helper()
	want := dumpColl(t, direct(t, c, p), readpref.Primary())
	eventually(t, d, fmt.Sprintf("%s holds the primary's %d documents", sec.Name, len(want)), func() error {
		got := dumpColl(t, direct(t, c, sec), readpref.SecondaryPreferred())
		if len(got) != len(want) {
			return fmt.Errorf("%d documents, want %d", len(got), len(want))
		}
		for i := range want {
			if !bytesEqual(got[i], want[i]) {
				return fmt.Errorf("document %d is %v, want %v", i, got[i], want[i])
			}
		}
		return nil
	})
}

// dumpColl reads papply.c in _id order (nil while the member cannot
// answer, e.g. restarting).
func dumpColl(t *testing.T, cl *mongo.Client, rp *readpref.ReadPref) []bson.Raw {
	t.Helper()
	ctx, cancel := ctxT(20 * time.Second)
	defer cancel()
	coll := cl.Database("papply", options.Database().SetReadPreference(rp)).Collection("c")
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return nil
	}
	defer cur.Close(ctx)
	var out []bson.Raw
	for cur.Next(ctx) {
		out = append(out, append(bson.Raw(nil), cur.Current...))
	}
	return out
}

func bytesEqual(a, b bson.Raw) bool { return string(a) == string(b) }
