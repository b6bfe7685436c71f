package repl

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/netclient"
	"github.com/relaydb/relaydb/internal/repl/topology"
	"github.com/relaydb/relaydb/internal/server"
	"github.com/relaydb/relaydb/internal/storage"
)

type realMember struct {
	host  string
	cat   *catalog.Catalog
	coord *Coordinator
}

// startReal runs a member in-process over real TCP: server, dispatcher,
// coordinator with a netclient pool and the real sync loop.
func startReal(t *testing.T) *realMember {
	t.Helper()
	cat, err := catalog.Open(catalog.Options{Storage: storage.Options{InMemory: true}, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	log := quietLogger()
	eng := exec.New(cat, log)
	disp := command.NewDispatcher(eng, command.Info{}, log)
	srv := server.New(server.Config{Addrs: []string{"127.0.0.1:0"}, Logger: log}, disp)
	if err := srv.Listen(); err != nil {
		t.Fatal(err)
	}
	host := srv.Addr().String()
	pool := netclient.NewPool(netclient.Options{Logger: log})
	coord, err := New(Options{Catalog: cat, Self: host, SetName: "rs", Transport: pool, Logger: log,
		NewSyncer: NewSyncLoop(SyncOptions{Catalog: cat, Logger: log,
			Dial: func(ctx context.Context, h string) (SourceConn, error) { return pool.Dial(ctx, h) }})})
	if err != nil {
		t.Fatal(err)
	}
	disp.SetReplication(coord)
	coord.Start()
	go srv.Serve()
	t.Cleanup(func() {
		coord.Stop()
		pool.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		disp.BeginShutdown()
		srv.Shutdown(ctx)
		eng.Close()
		_ = cat.Close()
	})
	return &realMember{host: host, cat: cat, coord: coord}
}

func TestEndToEndReplicatesOverTCP(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	ms := []*realMember{startReal(t), startReal(t), startReal(t)}
	members := bson.A{}
	for i, m := range ms {
		members = append(members, bson.D{{Key: "_id", Value: int32(i)}, {Key: "host", Value: m.host}})
	}
	cfg := bson.D{{Key: "_id", Value: "rs"}, {Key: "members", Value: members}}
	client := netclient.NewPool(netclient.Options{})
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := client.Run(ctx, ms[0].host, "admin", bson.D{{Key: "replSetInitiate", Value: cfg}}); err != nil {
		t.Fatal(err)
	}
	var prim *realMember
	for prim == nil && ctx.Err() == nil {
		for _, m := range ms {
			if m.coord.load().writable {
				prim = m
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if prim == nil {
		t.Fatal("no primary elected")
	}
	ins := bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}}},
		{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}}}}
	if _, err := client.Run(ctx, prim.host, "app", ins); err != nil {
		t.Fatal(err)
	}
	ts, _ := prim.cat.Oplog().Top()
	if err := prim.coord.WaitWriteConcern(ctx, ts, "majority", false); err != nil {
		t.Fatalf("w:majority: %v", err)
	}
	for _, m := range ms {
		for ctx.Err() == nil {
			if coll := m.cat.Collection("app", "c"); coll != nil && coll.Count() == 1 {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if ctx.Err() != nil {
			t.Fatalf("%s did not replicate the insert", m.host)
		}
	}
	for _, m := range ms {
		for m != prim && m.coord.load().state != topology.StateSecondary && ctx.Err() == nil {
			time.Sleep(20 * time.Millisecond) // STARTUP2 until the first applied entry
		}
	}
	if ctx.Err() != nil {
		t.Fatal("empty members did not become SECONDARY after syncing")
	}
	st, err := client.Run(ctx, prim.host, "admin", bson.D{{Key: "replSetGetStatus", Value: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if ms := lookupInt(st, "myState"); ms != 1 {
		t.Fatalf("status via TCP: %v", st)
	}
}
