package server

import (
	"net"
	"testing"
	"time"

	"github.com/relaydb/relaydb/internal/allowlist"
)

// dialFrom connects to addr from the loopback address local.
func dialFrom(t *testing.T, local, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{Timeout: 2 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// A refused client is closed before it is served; storing a new policy
// closes the open connections it excludes and leaves the others.
func TestAllowlistRefusesAndClosesOpenConnections(t *testing.T) {
	m := allowlist.NewMatcher(&allowlist.Policy{List: allowlist.MustParse("127.0.0.1/32", "127.0.0.3")})
	addr := startServer(t, Config{Allowlist: m})

	closedWithin(t, dialFrom(t, "127.0.0.2", addr), 2*time.Second)
	if s := m.Stats(10); s.Refused != 1 || s.ByAddr[0].Addr != "127.0.0.2" {
		t.Fatalf("stats after a refusal: %+v", s)
	}
	three, one := dialFrom(t, "127.0.0.3", addr), dialFrom(t, "127.0.0.1", addr)
	mustPing(t, three)
	mustPing(t, one)

	m.Store(&allowlist.Policy{List: allowlist.MustParse("127.0.0.1")})
	closedWithin(t, three, time.Second)
	mustPing(t, one)
	if s := m.Stats(10); s.Closed != 1 {
		t.Fatalf("closed count = %d, want 1", s.Closed)
	}
}
