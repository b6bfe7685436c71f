package sharding

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/tests/harness"
)

// adminRun runs cmd on admin through cl and decodes the reply.
func adminRun(t *testing.T, cl *mongo.Client, cmd bson.D) (bson.M, error) {
	t.Helper()
	var out bson.M
	err := cl.Database("admin").RunCommand(ctxT(t), cmd).Decode(&out)
	return out, err
}

// TestRouterAllowlist: a router enforces its --ipAllowlist; setIPAllowlist
// through it stores the list on the config servers, the router applies it
// at once (closing an open connection it now excludes), a second router
// started without a list follows the stored one, and useConfig brings the
// first router's configured list back.
func TestRouterAllowlist(t *testing.T) {
	cfg := startSets(t, []cluster.Spec{{Name: "cfg", ExtraArgs: []string{"--configsvr"}}})[0]
	r1 := harness.StartRouter(t, seed(cfg), "--ipAllowlist=127.0.0.1,127.0.0.3")
	if err := harness.PingFrom(r1.URI(), "127.0.0.2"); err == nil {
		t.Fatal("router served 127.0.0.2, outside its --ipAllowlist")
	}
	if err := harness.PingFrom(r1.URI(), "127.0.0.3"); err != nil {
		t.Fatalf("router refused 127.0.0.3: %v", err)
	}
	d := net.Dialer{Timeout: 2 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.3")}}
	open, err := d.Dial("tcp", r1.Host())
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()

	admin, err := mongo.Connect(options.Client().ApplyURI(r1.URI()))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Disconnect(context.Background())
	if _, err := adminRun(t, admin, bson.D{{Key: "setIPAllowlist", Value: 1}, {Key: "addresses", Value: bson.A{"127.0.0.2/32"}}}); err != nil {
		t.Fatalf("setIPAllowlist through the router: %v", err)
	}
	open.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := io.Copy(io.Discard, open); errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatal("the router kept an open connection from 127.0.0.3 after the list excluded it")
	}
	if err := harness.PingFrom(r1.URI(), "127.0.0.3"); err == nil {
		t.Fatal("router still serves 127.0.0.3")
	}
	if err := harness.PingFrom(r1.URI(), "127.0.0.2"); err != nil {
		t.Fatalf("router refuses 127.0.0.2 after setIPAllowlist: %v", err)
	}
	info, err := adminRun(t, admin, bson.D{{Key: "getIPAllowlist", Value: 1}})
	if err != nil || info["source"] != "command" || fmt.Sprint(info["configuredAddresses"]) != "[127.0.0.1 127.0.0.3]" {
		t.Fatalf("router getIPAllowlist: %v, %v", info, err)
	}
	var ss struct {
		IPAllowlist struct {
			Refused int64 `bson:"refusedConnections"`
			Closed  int64 `bson:"closedConnections"`
		} `bson:"ipAllowlist"`
	}
	if err := admin.Database("admin").RunCommand(ctxT(t), bson.D{{Key: "serverStatus", Value: 1}}).Decode(&ss); err != nil ||
		ss.IPAllowlist.Refused < 2 || ss.IPAllowlist.Closed < 1 {
		t.Fatalf("router serverStatus.ipAllowlist = %+v, %v", ss.IPAllowlist, err)
	}
	cfgClient, err := cfg.Client(cfg.Members()[0])
	if err != nil {
		t.Fatal(err)
	}
	if info, err := adminRun(t, cfgClient, bson.D{{Key: "getIPAllowlist", Value: 1}}); err != nil || info["source"] != "command" {
		t.Fatalf("config server getIPAllowlist: %v, %v", info, err)
	}

	r2 := harness.StartRouter(t, seed(cfg))
	if err := harness.PingFrom(r2.URI(), "127.0.0.3"); err == nil {
		t.Fatal("a second router does not follow the stored list")
	}

	if _, err := adminRun(t, admin, bson.D{{Key: "setIPAllowlist", Value: 1}, {Key: "useConfig", Value: true}}); err != nil {
		t.Fatalf("useConfig through the router: %v", err)
	}
	if err := harness.PingFrom(r1.URI(), "127.0.0.3"); err != nil {
		t.Fatalf("after useConfig the router refuses 127.0.0.3: %v", err)
	}
	if err := harness.PingFrom(r1.URI(), "127.0.0.2"); err == nil {
		t.Fatal("after useConfig the router serves 127.0.0.2")
	}
}
