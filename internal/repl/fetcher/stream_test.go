package fetcher

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/faultproxy"
	"github.com/relaydb/relaydb/internal/netclient"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl/applier"
	"github.com/relaydb/relaydb/internal/repl/topology"
	"github.com/relaydb/relaydb/internal/storage"
)

// TestStreamCutMidBatch cuts the link (a faultproxy between fetcher and
// source) while batches are being streamed, several times: every cut ends
// Run, the next Run resumes from the last entry applied on a new
// connection, and the destination ends with exactly the source's entries,
// each once, in order.
func TestStreamCutMidBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	src, host := startServer(t)
	proxy, err := faultproxy.New("127.0.0.1:0", host)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	coll, err := src.CreateCollection("app", "c", nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 400
	go func() {
		for i := 0; i < n; i++ {
			if _, err := src.Insert(coll, bson.D{{Key: "_id", Value: int32(i)}}); err != nil {
				t.Error(err)
			}
			if i%50 == 0 {
				time.Sleep(5 * time.Millisecond)
			}
		}
	}()
	dst, err := catalog.Open(catalog.Options{Storage: storage.Options{InMemory: true}, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool := netclient.NewPool(netclient.Options{})
	defer pool.Close()
	var seen []bson.Timestamp
	f := &Fetcher{BatchSize: 7, MaxAwait: 50 * time.Millisecond}
	cuts := 0
	for round := 0; len(seen) < n+1; round++ {
		if ctx.Err() != nil || round > 100 {
			t.Fatalf("fetched %d of %d entries in %d rounds", len(seen), n+1, round)
		}
		var after topology.OpTime
		if ts, term := dst.Oplog().Top(); !ts.IsZero() {
			after = topology.OpTime{TS: ts, Term: term}
		}
		conn, err := pool.Dial(ctx, proxy.Addr())
		if err != nil {
			t.Fatal(err)
		}
		batches := 0
		err = f.Run(ctx, conn, after, func(b []*oplog.Entry) error {
			for _, e := range b {
				seen = append(seen, e.TS)
			}
			if _, err := applier.ApplyBatch(dst, b, nil); err != nil {
				return err
			}
			if batches++; batches == 2 && cuts < 5 { // the source is streaming the next batches
				cuts++
				proxy.Drop()
				proxy.Heal()
			}
			if len(seen) >= n+1 {
				return errDone
			}
			return nil
		})
		conn.Close()
		if err != nil && !errors.Is(err, errDone) && cuts == 0 {
			t.Fatalf("round %d before any cut: %v", round, err)
		}
	}
	if cuts < 2 {
		t.Fatalf("only %d cuts happened", cuts)
	}
	for i := 1; i < len(seen); i++ {
		if !seen[i].After(seen[i-1]) {
			t.Fatalf("entry %d: %v after %v (duplicate or out of order)", i, seen[i], seen[i-1])
		}
	}
	wantTS, wantTerm := src.Oplog().Top()
	if ts, term := dst.Oplog().Top(); ts != wantTS || term != wantTerm || len(seen) != n+1 {
		t.Fatalf("destination top %v@%d after %d entries, source %v@%d after %d", ts, term, len(seen), wantTS, wantTerm, n+1)
	}
	if got := dst.Collection("app", "c").Count(); got != n {
		t.Fatalf("destination has %d documents, want %d", got, n)
	}
}

var errDone = errors.New("done")
