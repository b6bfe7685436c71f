package integration

import (
	"strings"
	"testing"
	"time"

	"github.com/relaydb/relaydb/tests/harness"
)

// TestDBPathLocked: a second server on a dbpath in use exits 100
// (DBPathInUse, as mongod) and says why; the first keeps serving.
func TestDBPathLocked(t *testing.T) {
	s := harness.Start(t)
	c := s.Client(t)
	p := startProc(t, "serve", "--port", itoa(freePort(t)), "--bind_ip", "127.0.0.1", "--dbpath", s.DBPath())
	if code := p.wait(t, 10*time.Second, "second server on a locked dbpath"); code != 100 {
		t.Errorf("exit code = %d, want 100 (dbpath in use)", code)
	}
	if out := strings.ToLower(p.out.String()); !strings.Contains(out, "lock") {
		t.Errorf("output does not mention the lock:\n%s", out)
	}
	mustPing(t, c)
}

// TestPortInUse: a server on a taken port exits 48 (mongod's EXIT_NET_ERROR)
// with a message saying the address is in use.
func TestPortInUse(t *testing.T) {
	s := harness.Start(t)
	p := startProc(t, "serve", "--port", itoa(s.Port()), "--bind_ip", "127.0.0.1", "--dbpath", t.TempDir())
	if code := p.wait(t, 10*time.Second, "server on a taken port"); code != 48 {
		t.Errorf("exit code = %d, want 48 (address in use)", code)
	}
	if out := strings.ToLower(p.out.String()); !strings.Contains(out, "in use") {
		t.Errorf("output does not say the address is in use:\n%s", out)
	}
	mustPing(t, s.Client(t))
}
