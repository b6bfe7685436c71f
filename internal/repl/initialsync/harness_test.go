package initialsync

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/netclient"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl/topology"
	"github.com/relaydb/relaydb/internal/server"
	"github.com/relaydb/relaydb/internal/storage"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func openMem(t testing.TB) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Open(catalog.Options{Storage: storage.Options{InMemory: true}, TTLInterval: -1, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cat.Close() })
	return cat
}

// startSource serves a fresh in-memory catalog over TCP, as a sync source
// with no coordinator (its oplog and collections read as any client
// reads them), and returns a dedicated connection to it.
func startSource(t *testing.T) (*catalog.Catalog, *netclient.Conn) {
	t.Helper()
	log := quiet()
	cat := openMem(t)
	eng := exec.New(cat, log)
	disp := command.NewDispatcher(eng, command.Info{}, log)
	srv := server.New(server.Config{Addrs: []string{"127.0.0.1:0"}, Logger: log}, disp)
	if err := srv.Listen(); err != nil {
		t.Fatal(err)
	}
	go srv.Serve()
	pool := netclient.NewPool(netclient.Options{Logger: log})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pool.Dial(ctx, srv.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = conn.Close()
		pool.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		disp.BeginShutdown()
		srv.Shutdown(ctx)
		eng.Close()
	})
	return cat, conn
}

// hookSource runs before(cmd) ahead of every command it forwards.
type hookSource struct {
	Source
	mu     sync.Mutex
	before func(db string, cmd bson.D) error
}

func (h *hookSource) Run(ctx context.Context, db string, cmd bson.D) (bson.D, error) {
	h.mu.Lock()
	f := h.before
	h.mu.Unlock()
	if f != nil {
		if err := f(db, cmd); err != nil {
			return nil, err
		}
	}
	return h.Source.Run(ctx, db, cmd)
}

// mustColl returns db.name on cat or fails.
func mustColl(t testing.TB, cat *catalog.Catalog, db, name string) *catalog.Collection {
	t.Helper()
	coll := cat.Collection(db, name)
	if coll == nil {
		t.Fatalf("%s.%s missing", db, name)
	}
	return coll
}

// docs returns coll's raw documents in _id order.
func docs(t testing.TB, coll *catalog.Collection) [][]byte {
	t.Helper()
	it := coll.Scan(false)
	defer it.Close()
	var out [][]byte
	for raw, ok := it.Next(); ok; raw, ok = it.Next() {
		out = append(out, append([]byte(nil), raw...))
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// indexOrder returns coll's documents in idx's order (so an index entry
// missing, extra or wrong shows up as a difference).
func indexOrder(t testing.TB, coll *catalog.Collection, idx *catalog.Index) [][]byte {
	t.Helper()
	it := coll.ScanIndex(idx, nil, nil, false)
	defer it.Close()
	var out [][]byte
	for raw, ok := it.Next(); ok; raw, ok = it.Next() {
		out = append(out, append([]byte(nil), raw...))
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// assertSameData checks every collection outside local: documents,
// counters, options, UUIDs, index specs and index contents.
func assertSameData(t *testing.T, want, got *catalog.Catalog) {
	t.Helper()
	for _, db := range want.Databases() {
		if db == catalog.LocalDB {
			continue
		}
		for _, wc := range want.Collections(db) {
			gc := got.Collection(db, wc.Name)
			if gc == nil {
				t.Errorf("%s missing", wc.NS())
				continue
			}
			assertSameColl(t, wc, gc)
		}
	}
	for _, db := range got.Databases() {
		for _, gc := range got.Collections(db) {
			if db != catalog.LocalDB && want.Collection(db, gc.Name) == nil {
				t.Errorf("%s is extra", gc.NS())
			}
		}
	}
}

func assertSameColl(t *testing.T, wc, gc *catalog.Collection) {
	t.Helper()
	if !bytes.Equal(wc.UUID.Data, gc.UUID.Data) {
		t.Errorf("%s: uuid differs", wc.NS())
	}
	if !bsonx.Equal(normOpts(wc.Options), normOpts(gc.Options)) {
		t.Errorf("%s: options %v, want %v", wc.NS(), gc.Options, wc.Options)
	}
	wd, gd := docs(t, wc), docs(t, gc)
	if len(wd) != len(gd) || wc.Count() != gc.Count() || wc.DataSize() != gc.DataSize() {
		t.Errorf("%s: %d documents (count %d, size %d), want %d (count %d, size %d)", wc.NS(),
			len(gd), gc.Count(), gc.DataSize(), len(wd), wc.Count(), wc.DataSize())
	}
	for i := 0; i < min(len(wd), len(gd)); i++ {
		if !bytes.Equal(wd[i], gd[i]) {
			t.Errorf("%s: document %d is %v, want %v", wc.NS(), i, bson.Raw(gd[i]), bson.Raw(wd[i]))
			break
		}
	}
	wi, gi := wc.Indexes(), gc.Indexes()
	if len(wi) != len(gi) {
		t.Errorf("%s: %d indexes, want %d", wc.NS(), len(gi), len(wi))
		return
	}
	for i := range wi {
		if !bsonx.Equal(wi[i].Spec, gi[i].Spec) {
			t.Errorf("%s: index %d spec %v, want %v", wc.NS(), i, gi[i].Spec, wi[i].Spec)
			continue
		}
		if wi[i].IsID() {
			continue
		}
		a, b := indexOrder(t, wc, wi[i]), indexOrder(t, gc, gi[i])
		if len(a) != len(b) {
			t.Errorf("%s: index %s has %d entries, want %d", wc.NS(), wi[i].Name, len(b), len(a))
			continue
		}
		for j := range a {
			if !bytes.Equal(a[j], b[j]) {
				t.Errorf("%s: index %s differs at %d", wc.NS(), wi[i].Name, j)
				break
			}
		}
	}
}

func normOpts(d bson.D) bson.D {
	if d == nil {
		return bson.D{}
	}
	return d
}

type oplogEntry = oplog.Entry

func opTime(ts bson.Timestamp, term int64) topology.OpTime {
	return topology.OpTime{TS: ts, Term: term}
}
