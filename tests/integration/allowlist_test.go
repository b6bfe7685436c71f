package integration

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/tests/harness"
)

// clientFrom connects to s from the loopback address local (127.0.0.2,
// 127.0.0.3, ...) with a short server selection timeout.
func clientFrom(t *testing.T, s *harness.Server, local string) *mongo.Client {
	t.Helper()
	d := &net.Dialer{Timeout: 2 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	c, err := mongo.Connect(options.Client().ApplyURI(s.URI()).SetDialer(d).
		SetServerSelectionTimeout(2 * time.Second).SetConnectTimeout(2 * time.Second))
	if err != nil {
		t.Fatalf("connect from %s: %v", local, err)
	}
	t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	return c
}

func pingErr(t *testing.T, c *mongo.Client) error {
	t.Helper()
	return c.Ping(tctx(t, 5*time.Second), nil)
}

// rawConnFrom opens a TCP connection to s from local and checks it is served
// (a ping answered), for tests that watch the server close it.
func rawConnFrom(t *testing.T, s *harness.Server, local string) net.Conn {
	t.Helper()
	d := net.Dialer{Timeout: 2 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	nc, err := d.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", s.Port()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	body, _ := bson.Marshal(bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})
	msg := make([]byte, 21, 21+len(body))
	msg = append(msg, body...)
	putU32 := func(off int, v uint32) {
		msg[off], msg[off+1], msg[off+2], msg[off+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	putU32(0, uint32(len(msg)))
	putU32(4, 1)
	putU32(12, 2013) // OP_MSG; flags 0, section kind 0
	nc.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := nc.Write(msg); err != nil {
		t.Fatalf("write ping from %s: %v", local, err)
	}
	hdr := make([]byte, 16)
	if _, err := io.ReadFull(nc, hdr); err != nil {
		t.Fatalf("ping from %s not answered: %v", local, err)
	}
	n := int(hdr[0]) | int(hdr[1])<<8 | int(hdr[2])<<16 | int(hdr[3])<<24
	if _, err := io.CopyN(io.Discard, nc, int64(n-16)); err != nil {
		t.Fatalf("ping reply from %s: %v", local, err)
	}
	nc.SetDeadline(time.Time{})
	return nc
}

// closedWithin fails t unless the server closes nc within d; it returns
// how long that took.
func closedWithin(t *testing.T, nc net.Conn, d time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	nc.SetReadDeadline(start.Add(d))
	_, err := io.Copy(io.Discard, nc)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("connection from %s still open after %v", nc.LocalAddr(), d)
	}
	return time.Since(start)
}

func allowlistInfo(t *testing.T, c *mongo.Client) bson.M {
	t.Helper()
	out, err := runCmd(t, c, "admin", bson.D{{Key: "getIPAllowlist", Value: 1}})
	if err != nil {
		t.Fatalf("getIPAllowlist: %v", err)
	}
	return out
}

func setAllowlist(t *testing.T, c *mongo.Client, extra ...bson.E) error {
	t.Helper()
	_, err := runCmd(t, c, "admin", append(bson.D{{Key: "setIPAllowlist", Value: 1}}, extra...))
	return err
}

func addrs(list ...string) bson.E {
	a := bson.A{}
	for _, s := range list {
		a = append(a, s)
	}
	return bson.E{Key: "addresses", Value: a}
}

// A server started with --ipAllowlist 127.0.0.1/32,127.0.0.3 refuses a
// client from 127.0.0.2 right after accept and serves 127.0.0.3; the
// refusal is counted in getIPAllowlist and serverStatus.
func TestAllowlistRefusesAtAccept(t *testing.T) {
	s, admin := startServer(t, harness.WithArgs("--ipAllowlist=127.0.0.1/32,127.0.0.3"))
	if err := pingErr(t, clientFrom(t, s, "127.0.0.2")); err == nil {
		t.Fatal("a client from 127.0.0.2 was served")
	}
	if err := pingErr(t, clientFrom(t, s, "127.0.0.3")); err != nil {
		t.Fatalf("a client from 127.0.0.3 was refused: %v", err)
	}
	info := allowlistInfo(t, admin)
	if info["source"] != "config" || fmt.Sprint(info["addresses"]) != "[127.0.0.1 127.0.0.3]" || info["alwaysAllowMembers"] != true {
		t.Fatalf("getIPAllowlist = %v", info)
	}
	if n, _ := info["refusedConnections"].(int64); n < 1 || !strings.Contains(fmt.Sprint(info["refusedByAddress"]), "127.0.0.2") {
		t.Fatalf("refusals not counted: %v", info)
	}
	st, err := runCmd(t, admin, "admin", bson.D{{Key: "serverStatus", Value: 1}})
	if err != nil {
		t.Fatal(err)
	}
	var sec struct {
		Source  string `bson:"source"`
		Refused int64  `bson:"refusedConnections"`
	}
	raw, _ := bson.Marshal(st["ipAllowlist"])
	if err := bson.Unmarshal(raw, &sec); err != nil || sec.Refused < 1 || sec.Source != "config" {
		t.Fatalf("serverStatus.ipAllowlist = %v (%v)", st["ipAllowlist"], err)
	}
	logs, _ := os.ReadFile(s.LogPath())
	if !strings.Contains(string(logs), "address not in the IP allowlist") || !strings.Contains(string(logs), "127.0.0.2:") {
		t.Fatalf("refusal not logged with its address:\n%s", logs)
	}
}

// setIPAllowlist on a server without a list closes an already-open
// connection from 127.0.0.3 once .3 is no longer allowed (within a second)
// and new ones are refused; useConfig: true brings the configured (empty)
// list back.
func TestSetIPAllowlistClosesOpenConnections(t *testing.T) {
	s, admin := startServer(t)
	three := clientFrom(t, s, "127.0.0.3")
	if err := pingErr(t, three); err != nil {
		t.Fatal(err)
	}
	raw := rawConnFrom(t, s, "127.0.0.3")
	if err := setAllowlist(t, admin, addrs("127.0.0.3")); err != nil {
		t.Fatalf("allow .3: %v", err)
	}
	rawConnFrom(t, s, "127.0.0.3").Close()
	if err := setAllowlist(t, admin, addrs("127.0.0.2")); err != nil {
		t.Fatalf("remove .3: %v", err)
	}
	took := closedWithin(t, raw, time.Second)
	t.Logf("open connection from 127.0.0.3 closed %v after setIPAllowlist returned", took)
	if err := pingErr(t, three); err == nil {
		t.Fatal("the driver from 127.0.0.3 is still served")
	}
	info := allowlistInfo(t, admin)
	if info["source"] != "command" || info["closedConnections"].(int64) < 1 {
		t.Fatalf("getIPAllowlist = %v", info)
	}
	if err := setAllowlist(t, admin, bson.E{Key: "useConfig", Value: true}); err != nil {
		t.Fatalf("useConfig: %v", err)
	}
	if err := pingErr(t, clientFrom(t, s, "127.0.0.3")); err != nil {
		t.Fatalf("after useConfig .3 is refused: %v", err)
	}
	if info := allowlistInfo(t, admin); info["source"] != "none" {
		t.Fatalf("after useConfig: %v", info)
	}
}

// Bad lists are BadValue naming the entry; a list excluding the issuing
// connection is refused unless force: true.
func TestSetIPAllowlistErrors(t *testing.T) {
	s, admin := startServer(t)
	for _, tc := range []struct {
		args []bson.E
		want string
	}{
		{[]bson.E{addrs("127.0.0.1", "10.0.0.1/8")}, `entry 1 "10.0.0.1/8" is invalid`},
		{[]bson.E{addrs("localhost")}, `entry 0 "localhost" is invalid`},
		{[]bson.E{addrs("")}, "empty entry"},
		{[]bson.E{{Key: "addresses", Value: bson.A{"127.0.0.1", 7}}}, "entry 1 must be a string"},
		{nil, "needs 'addresses'"},
		{[]bson.E{addrs("127.0.0.1"), {Key: "useConfig", Value: true}}, "not both"},
	} {
		err := setAllowlist(t, admin, tc.args...)
		if cmdCode(err) != 2 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("setIPAllowlist %v: %v, want BadValue %q", tc.args, err, tc.want)
		}
	}
	// Lock-out protection, from 127.0.0.3 (127.0.0.1 stays allowed with
	// alwaysAllowMembers, so it could never lock itself out).
	three := clientFrom(t, s, "127.0.0.3")
	err := setAllowlist(t, three, addrs("127.0.0.2"))
	if cmdCode(err) != 2 || !strings.Contains(err.Error(), "127.0.0.3") || !strings.Contains(err.Error(), "force") {
		t.Fatalf("lock-out not refused: %v", err)
	}
	if err := setAllowlist(t, three, addrs("127.0.0.2"), bson.E{Key: "force", Value: true}); err != nil &&
		!mongo.IsNetworkError(err) {
		t.Fatalf("forced: %v", err)
	}
	if err := pingErr(t, clientFrom(t, s, "127.0.0.3")); err == nil {
		t.Fatal("127.0.0.3 still served after the forced list")
	}
	if info := allowlistInfo(t, admin); fmt.Sprint(info["addresses"]) != "[127.0.0.2]" {
		t.Fatalf("forced list not in force: %v", info)
	}
}

// The stored list survives restart and overrides the configured one.
func TestSetIPAllowlistSurvivesRestart(t *testing.T) {
	s, admin := startServer(t, harness.WithArgs("--ipAllowlist=127.0.0.2"))
	if err := setAllowlist(t, admin, addrs("127.0.0.3")); err != nil {
		t.Fatal(err)
	}
	s.Restart(t)
	admin = s.Client(t)
	if info := allowlistInfo(t, admin); info["source"] != "command" || fmt.Sprint(info["addresses"]) != "[127.0.0.3]" ||
		fmt.Sprint(info["configuredAddresses"]) != "[127.0.0.2]" {
		t.Fatalf("after restart: %v", info)
	}
	if err := pingErr(t, clientFrom(t, s, "127.0.0.2")); err == nil {
		t.Fatal("127.0.0.2 (the configured list) served: the stored list did not override it")
	}
	if err := pingErr(t, clientFrom(t, s, "127.0.0.3")); err != nil {
		t.Fatalf("127.0.0.3 refused after restart: %v", err)
	}
}

// Under --auth, clusterMonitor reads the list but cannot set it;
// clusterManager sets and reads it; unauthenticated clients do neither.
func TestIPAllowlistPrivileges(t *testing.T) {
	s, anon := startServer(t, harness.WithArgs("--auth"))
	if _, err := runCmd(t, anon, "admin", bson.D{{Key: "createUser", Value: "root"}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: bson.A{"root"}}}); err != nil {
		t.Fatal(err)
	}
	root, err := loginClient(t, s, "root", "pw", "SCRAM-SHA-256")
	if err != nil {
		t.Fatal(err)
	}
	for _, role := range []string{"clusterMonitor", "clusterManager"} {
		if _, err := runCmd(t, root, "admin", bson.D{{Key: "createUser", Value: role}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: bson.A{role}}}); err != nil {
			t.Fatal(err)
		}
	}
	monitor, err := loginClient(t, s, "clusterMonitor", "pw", "SCRAM-SHA-256")
	if err != nil {
		t.Fatal(err)
	}
	manager, err := loginClient(t, s, "clusterManager", "pw", "SCRAM-SHA-256")
	if err != nil {
		t.Fatal(err)
	}
	if err := setAllowlist(t, anon, addrs("127.0.0.3")); cmdCode(err) != 13 {
		t.Fatalf("unauthenticated setIPAllowlist: %v", err)
	}
	if err := setAllowlist(t, monitor, addrs("127.0.0.3")); cmdCode(err) != 13 {
		t.Fatalf("clusterMonitor setIPAllowlist: %v", err)
	}
	if err := setAllowlist(t, manager, addrs("127.0.0.3")); err != nil {
		t.Fatalf("clusterManager setIPAllowlist: %v", err)
	}
	if info := allowlistInfo(t, monitor); fmt.Sprint(info["addresses"]) != "[127.0.0.3]" {
		t.Fatalf("clusterMonitor getIPAllowlist: %v", info)
	}
	if info := allowlistInfo(t, manager); info["source"] != "command" {
		t.Fatalf("clusterManager getIPAllowlist: %v", info)
	}
	if err := setAllowlist(t, manager, bson.E{Key: "useConfig", Value: true}); err != nil {
		t.Fatalf("clusterManager useConfig: %v", err)
	}
}

// useConfig is refused when the configured list would exclude the
// issuing connection (unless force: true), as a new list would be.
func TestSetIPAllowlistUseConfigLockOut(t *testing.T) {
	s, admin := startServer(t, harness.WithArgs("--ipAllowlist=127.0.0.1,127.0.0.2", "--ipAllowlistAlwaysAllowMembers=false"))
	if err := setAllowlist(t, admin, addrs("127.0.0.1", "127.0.0.3")); err != nil {
		t.Fatal(err)
	}
	three := clientFrom(t, s, "127.0.0.3")
	err := setAllowlist(t, three, bson.E{Key: "useConfig", Value: true})
	if cmdCode(err) != 2 || !strings.Contains(err.Error(), "127.0.0.3") {
		t.Fatalf("useConfig excluding the caller: %v", err)
	}
	if info := allowlistInfo(t, admin); info["source"] != "command" || info["alwaysAllowMembers"] != true {
		t.Fatalf("after the refused useConfig: %v", info)
	}
	if err := setAllowlist(t, admin, bson.E{Key: "useConfig", Value: true}); err != nil {
		t.Fatalf("useConfig from 127.0.0.1: %v", err)
	}
	if info := allowlistInfo(t, admin); info["source"] != "config" || info["alwaysAllowMembers"] != false {
		t.Fatalf("after useConfig: %v", info)
	}
}

// A bad --ipAllowlist entry or YAML net.ipAllowlist stops serve and router
// at startup with the entry named.
func TestAllowlistBadConfigRefusedAtStartup(t *testing.T) {
	bin, err := harness.Binary()
	if err != nil {
		t.Fatal(err)
	}
	yaml := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(yaml, []byte("net:\n  ipAllowlist:\n    addresses: [127.0.0.1, not-an-ip]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--inMemory", "--port=1", "--ipAllowlist=127.0.0.1,10.0.0.1/8"}, `entry 1 "10.0.0.1/8" is invalid`},
		{[]string{"serve", "--inMemory", "--port=1", "--config", yaml}, `entry 1 "not-an-ip" is invalid`},
		{[]string{"router", "--configdb=cfg/127.0.0.1:1", "--port=1", "--ipAllowlist=::1%lo"}, "zones"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		out, err := exec.CommandContext(ctx, bin, tc.args...).CombinedOutput()
		cancel()
		if err == nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("relaydb %v: err %v, output:\n%s\nwant %q", tc.args, err, out, tc.want)
		}
	}
}
