package repl

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/tests/harness"
)

// pingFrom pings host directly from the loopback address local.
func pingFrom(host, local string) error {
	return harness.PingFrom("mongodb://"+host+"/?directConnection=true", local)
}

// getAllowlist runs getIPAllowlist on m.
func getAllowlist(t *testing.T, c *cluster.Cluster, m *cluster.Member) bson.M {
	t.Helper()
	ctx, cancel := ctxT(10 * time.Second)
	defer cancel()
	var out bson.M
	if err := direct(t, c, m).Database("admin").RunCommand(ctx, bson.D{{Key: "getIPAllowlist", Value: 1}}).Decode(&out); err != nil {
		t.Fatalf("getIPAllowlist on %s: %v", m.Name, err)
	}
	return out
}

// openFrom opens a raw connection to host from local (the server closes
// it when the list excludes local).
func openFrom(t *testing.T, host, local string) net.Conn {
	t.Helper()
	d := net.Dialer{Timeout: 2 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	nc, err := d.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return nc
}

// TestAllowlistReplicates: setIPAllowlist on the primary (w: majority)
// reaches every secondary, which then refuses 127.0.0.2, serves 127.0.0.3
// and closes the .2 connection it had open; a restarted secondary keeps
// the list; the members (127.0.0.1) keep replicating throughout.
func TestAllowlistReplicates(t *testing.T) {
	c := upSet(t, cluster.Spec{Data: 3})
	p := primary(t, c, 20*time.Second)
	secs := secondaries(c, p)
	open := map[string]net.Conn{}
	for _, m := range secs {
		if err := pingFrom(m.Host, "127.0.0.2"); err != nil {
			t.Fatalf("before the list, %s refused 127.0.0.2: %v", m.Name, err)
		}
		open[m.Name] = openFrom(t, m.Host, "127.0.0.2")
	}
	ctx, cancel := ctxT(15 * time.Second)
	defer cancel()
	cmd := bson.D{{Key: "setIPAllowlist", Value: 1}, {Key: "addresses", Value: bson.A{"127.0.0.3"}},
		{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}}}}
	if err := direct(t, c, p).Database("admin").RunCommand(ctx, cmd).Err(); err != nil {
		t.Fatalf("setIPAllowlist: %v", err)
	}
	waitClosed(t, open, time.Now(), 5*time.Second)
	for _, m := range secs {
		if err := pingFrom(m.Host, "127.0.0.2"); err == nil {
			t.Fatalf("%s serves 127.0.0.2 after replication", m.Name)
		}
		if err := pingFrom(m.Host, "127.0.0.3"); err != nil {
			t.Fatalf("%s refuses 127.0.0.3: %v", m.Name, err)
		}
		if info := getAllowlist(t, c, m); info["source"] != "command" || fmt.Sprint(info["addresses"]) != "[127.0.0.3]" {
			t.Fatalf("getIPAllowlist on %s: %v", m.Name, info)
		}
	}
	victim := secs[0]
	rctx, rcancel := ctxT(30 * time.Second)
	defer rcancel()
	if _, err := c.Restart(rctx, victim.Name); err != nil {
		t.Fatalf("restart %s: %v", victim.Name, err)
	}
	if err := pingFrom(victim.Host, "127.0.0.2"); err == nil {
		t.Fatalf("restarted %s serves 127.0.0.2", victim.Name)
	}
	if info := getAllowlist(t, c, victim); info["source"] != "command" {
		t.Fatalf("restarted %s: %v", victim.Name, info)
	}
	// The members still replicate (they connect from 127.0.0.1, allowed
	// with alwaysAllowMembers): a majority write is acknowledged.
	wctx, wcancel := ctxT(15 * time.Second)
	defer wcancel()
	coll := direct(t, c, p).Database("allowlist").Collection("w")
	if _, err := coll.InsertOne(wctx, bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatalf("majority write after the list: %v", err)
	}
	eventually(t, 10*time.Second, "the restarted member catches up", func() error {
		var doc bson.M
		cl := direct(t, c, victim)
		ctx, cancel := ctxT(3 * time.Second)
		defer cancel()
		return cl.Database("allowlist").Collection("w").FindOne(ctx, bson.D{}).Decode(&doc)
	})
}

// waitClosed waits, in parallel, until the server closes each connection
// (at most d after since), logging how long each took.
func waitClosed(t *testing.T, conns map[string]net.Conn, since time.Time, d time.Duration) {
	t.Helper()
	errs := make(chan error, len(conns))
	for name, nc := range conns {
		go func() {
			nc.SetReadDeadline(since.Add(d))
			if _, err := io.Copy(io.Discard, nc); errors.Is(err, os.ErrDeadlineExceeded) {
				errs <- fmt.Errorf("%s kept its 127.0.0.2 connection open %v after the list was set", name, d)
				return
			}
			t.Logf("%s closed its 127.0.0.2 connection %v after setIPAllowlist returned", name, time.Since(since))
			errs <- nil
		}()
	}
	for range conns {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
