package repl

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/relaydb/relaydb/internal/cluster"
)

// TestInitialSyncOfWipedMember: a secondary whose data directory is wiped
// clones the set's data on restart, applies what was written meanwhile
// and becomes SECONDARY with identical documents and indexes.
func TestInitialSyncOfWipedMember(t *testing.T) {
	c := upSet(t, cluster.Spec{Data: 3})
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	prim, err := c.WaitPrimary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pc, err := c.Client(prim)
	if err != nil {
		t.Fatal(err)
	}
	items := pc.Database("app").Collection("items", options.Collection().SetWriteConcern(writeconcern.Majority()))
	if _, err := items.Indexes().CreateMany(ctx, []mongo.IndexModel{
		{Keys: bson.D{{Key: "k", Value: 1}}, Options: options.Index().SetUnique(true).SetName("k_unique")},
		{Keys: bson.D{{Key: "g", Value: 1}, {Key: "k", Value: -1}}},
		{Keys: bson.D{{Key: "opt", Value: 1}}, Options: options.Index().SetSparse(true)},
	}); err != nil {
		t.Fatal(err)
	}
	insertItems(ctx, t, items, 0, 5000)
	other := pc.Database("other").Collection("c", options.Collection().SetWriteConcern(writeconcern.Majority()))
	if _, err := other.InsertOne(ctx, bson.D{{Key: "_id", Value: "x"}, {Key: "v", Value: 1.5}}); err != nil {
		t.Fatal(err)
	}
	victim := secondaryOf(t, c, prim)
	wipeAndRestart(ctx, t, c, victim)
	// Writes while the member syncs: new documents, updates, deletes.
	insertItems(ctx, t, items, 5000, 5200)
	if _, err := items.UpdateMany(ctx, bson.D{{Key: "g", Value: 3}}, bson.D{{Key: "$set", Value: bson.D{{Key: "touched", Value: true}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := items.DeleteMany(ctx, bson.D{{Key: "g", Value: 5}}); err != nil {
		t.Fatal(err)
	}
	waitSecondary(ctx, t, c, victim)
	if log, err := os.ReadFile(victim.LogPath); err != nil || !strings.Contains(string(log), "initial sync done") {
		t.Fatalf("%s became SECONDARY without an initial sync (log %s: %v)", victim.Name, victim.LogPath, err)
	}
	vc, err := c.Client(victim)
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range [][2]string{{"app", "items"}, {"other", "c"}} {
		want := readAll(ctx, t, pc.Database(ns[0]).Collection(ns[1]))
		waitSameCount(ctx, t, vc.Database(ns[0]).Collection(ns[1]), len(want))
		if got := readAll(ctx, t, vc.Database(ns[0]).Collection(ns[1])); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s.%s differs after initial sync: %d documents, want %d", ns[0], ns[1], len(got), len(want))
		}
		if got, want := indexSpecs(ctx, t, vc, ns), indexSpecs(ctx, t, pc, ns); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s.%s indexes %v, want %v", ns[0], ns[1], got, want)
		}
	}
}

func insertItems(ctx context.Context, t *testing.T, coll *mongo.Collection, from, to int) {
	t.Helper()
	for lo := from; lo < to; lo += 500 {
		var docs []any
		for i := lo; i < min(lo+500, to); i++ {
			d := bson.D{{Key: "_id", Value: int32(i)}, {Key: "k", Value: fmt.Sprintf("key-%05d", i)},
				{Key: "g", Value: int32(i % 10)}}
			if i%3 == 0 {
				d = append(d, bson.E{Key: "opt", Value: bson.A{int32(i), "x"}})
			}
			docs = append(docs, d)
		}
		if _, err := coll.InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
	}
}

func secondaryOf(t *testing.T, c *cluster.Cluster, prim *cluster.Member) *cluster.Member {
	t.Helper()
	for _, m := range c.Members() {
		if m.Name != prim.Name {
			return m
		}
	}
	t.Fatal("no secondary")
	return nil
}

// waitSecondary polls hello until m reports secondary (bounded by ctx).
// wipeAndRestart stops m, empties its data directory and starts it
// again: it comes back through initial sync.
func wipeAndRestart(ctx context.Context, t *testing.T, c *cluster.Cluster, m *cluster.Member) {
	t.Helper()
	if _, err := c.Stop(ctx, m.Name); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(m.DBPath); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(m.DBPath, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Restart(ctx, m.Name); err != nil {
		t.Fatal(err)
	}
}

func waitSecondary(ctx context.Context, t *testing.T, c *cluster.Cluster, m *cluster.Member) {
	t.Helper()
	var last cluster.HelloReply
	var lastErr error
	for ctx.Err() == nil {
		last, lastErr = c.Hello(ctx, m)
		if lastErr == nil && last.Secondary {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s did not become SECONDARY after its initial sync: %+v %v", m.Name, last, lastErr)
}

func waitSameCount(ctx context.Context, t *testing.T, coll *mongo.Collection, want int) {
	t.Helper()
	var n int64
	var err error
	for ctx.Err() == nil {
		if n, err = coll.CountDocuments(ctx, bson.D{}); err == nil && n == int64(want) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s has %d documents (%v), want %d", coll.Name(), n, err, want)
}

func readAll(ctx context.Context, t *testing.T, coll *mongo.Collection) []bson.D {
	t.Helper()
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var out []bson.D
	if err := cur.All(ctx, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func indexSpecs(ctx context.Context, t *testing.T, cl *mongo.Client, ns [2]string) []bson.D {
	t.Helper()
	cur, err := cl.Database(ns[0]).Collection(ns[1]).Indexes().List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []bson.D
	if err := cur.All(ctx, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
