package fetcher

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/netclient"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl/applier"
	"github.com/relaydb/relaydb/internal/repl/repltest"
	"github.com/relaydb/relaydb/internal/repl/topology"
	"github.com/relaydb/relaydb/internal/storage"
)

// startServer serves a fresh in-memory catalog over TCP (no replication
// coordinator: the oplog is read as any client reads it).
func startServer(t *testing.T) (*catalog.Catalog, string) {
	t.Helper()
	cat, err := catalog.Open(catalog.Options{Storage: storage.Options{InMemory: true}, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cat.Close() })
	return cat, repltest.Serve(t, cat, slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// TestFetchOverTheWire tails a real server's oplog through netclient and
// applies it to a second catalog, which ends up with the same oplog.
func TestFetchOverTheWire(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	src, host := startServer(t)
	coll, err := src.CreateCollection("app", "c", nil)
	if err != nil {
		t.Fatal(err)
	}
	insert := func(n int) {
		for i := 0; i < n; i++ {
			if _, err := src.Insert(coll, bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "i", Value: int32(i)}}); err != nil {
				t.Error(err)
			}
		}
	}
	insert(50)
	dst, err := catalog.Open(catalog.Options{Storage: storage.Options{InMemory: true}, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	pool := netclient.NewPool(netclient.Options{})
	defer pool.Close()
	conn, err := pool.Dial(ctx, host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	want := 1 + 50 + 30
	got := 0
	f := &Fetcher{BatchSize: 16, MaxAwait: 50 * time.Millisecond}
	err = f.Run(ctx, conn, topology.OpTime{}, func(b []*oplog.Entry) error {
		if got == 0 {
			go insert(30) // arrives through awaitData getMores
		}
		if _, err := applier.ApplyBatch(dst, b, nil); err != nil {
			return err
		}
		if got += len(b); got >= want {
			cancel()
		}
		return nil
	})
	if got < want {
		t.Fatalf("fetched %d of %d entries: %v", got, want, err)
	}
	wantTS, wantTerm := src.Oplog().Top()
	if ts, term := dst.Oplog().Top(); ts != wantTS || term != wantTerm {
		t.Fatalf("destination top %v@%d, source %v@%d", ts, term, wantTS, wantTerm)
	}
	if n := dst.Collection("app", "c").Count(); n != 80 {
		t.Fatalf("destination has %d documents", n)
	}
}
