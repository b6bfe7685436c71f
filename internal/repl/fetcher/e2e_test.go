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

// countingConn counts the getMore requests and exhaust streams a fetch
// sends through a real connection.
type countingConn struct {
	*netclient.Conn
	getMores, streams, replies int
}

func (c *countingConn) Run(ctx context.Context, db string, cmd bson.D) (bson.D, error) {
	if len(cmd) > 0 && cmd[0].Key == "getMore" {
		c.getMores++
	}
	return c.Conn.Run(ctx, db, cmd)
}

func (c *countingConn) StartExhaust(ctx context.Context, db string, cmd bson.D) error {
	c.streams++
	return c.Conn.StartExhaust(ctx, db, cmd)
}

func (c *countingConn) NextExhaust(ctx context.Context) (bson.D, bool, error) {
	c.replies++
	return c.Conn.NextExhaust(ctx)
}

// TestFetchOverTheWire tails a real server's oplog through netclient and
// applies it to a second catalog, which ends up with the same oplog, once
// with a getMore per batch and once streamed (one exhaust getMore).
func TestFetchOverTheWire(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	for _, noStream := range []bool{true, false} {
		t.Run(map[bool]string{true: "getMore", false: "stream"}[noStream], func(t *testing.T) {
			c := fetchOverTheWire(t, noStream)
			if noStream && (c.streams != 0 || c.getMores < 2) {
				t.Fatalf("getMore mode: %d getMores, %d streams", c.getMores, c.streams)
			}
			if !noStream && (c.getMores != 0 || c.streams != 1 || c.replies < 2) {
				t.Fatalf("stream mode: %d getMores, %d streams, %d replies", c.getMores, c.streams, c.replies)
			}
		})
	}
}

func fetchOverTheWire(t *testing.T, noStream bool) *countingConn {
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
	nc, err := pool.Dial(ctx, host)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	conn := &countingConn{Conn: nc}
	want := 1 + 50 + 30
	got := 0
	f := &Fetcher{BatchSize: 16, MaxAwait: 50 * time.Millisecond, NoStream: noStream}
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
	return conn
}
