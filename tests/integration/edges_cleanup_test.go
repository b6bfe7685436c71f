package integration

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/relaydb/relaydb/tests/harness"
)

// TestFailedCommandsLeaveNothingBehind (issue #14 item 9): `tool verify`
// of a missing dbpath fails without creating it (or any lock file), and
// `serve` on a port in use exits 48 (mongod's EXIT_NET_ERROR) before it
// creates its dbpath or writes a store; a serve that fails later in its
// start (a missing certificate or key file) removes the dbpath it created.
func TestFailedCommandsLeaveNothingBehind(t *testing.T) {
	bin, err := harness.Binary()
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	t.Run("tool verify of a missing dbpath", func(t *testing.T) {
		missing := filepath.Join(base, "missing")
		code, out := runExit(t, bin, "tool", "verify", "--dbpath", missing)
		if code == 0 {
			t.Errorf("tool verify of a missing dbpath exited 0:\n%s", out)
		}
		assertAbsent(t, missing)
	})
	t.Run("tool verify of an empty dir", func(t *testing.T) {
		empty := filepath.Join(base, "empty")
		if err := os.Mkdir(empty, 0o755); err != nil {
			t.Fatal(err)
		}
		if code, out := runExit(t, bin, "tool", "verify", "--dbpath", empty); code == 0 {
			t.Errorf("tool verify of an empty dir exited 0:\n%s", out)
		}
		if ents, _ := os.ReadDir(empty); len(ents) > 0 {
			t.Errorf("tool verify left %s in an empty dir", ents[0].Name())
		}
	})
	t.Run("serve on a port in use", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
		dbpath := filepath.Join(base, "serve-db")
		code, out := runExit(t, bin, "serve", "--bind_ip", "127.0.0.1", "--port", port, "--dbpath", dbpath)
		if code != 48 {
			t.Errorf("serve on a taken port exited %d, want 48:\n%s", code, out)
		}
		assertAbsent(t, dbpath)
	})
	t.Run("serve with a missing TLS certificate or key file", func(t *testing.T) {
		for i, args := range [][]string{
			{"--tlsMode", "requireTLS", "--tlsCertificateKeyFile", filepath.Join(base, "none.pem"), "--tlsCAFile", filepath.Join(base, "none-ca.pem")},
			{"--keyFile", filepath.Join(base, "none.key")},
		} {
			dbpath := filepath.Join(base, "serve-bad-"+strconv.Itoa(i))
			code, out := runExit(t, bin, append([]string{"serve", "--bind_ip", "127.0.0.1", "--port", freePortString(t), "--dbpath", dbpath}, args...)...)
			if code == 0 {
				t.Errorf("serve %v exited 0:\n%s", args, out)
			}
			assertAbsent(t, dbpath)
		}
	})
}

// runExit runs bin with args (bounded: 20 s) and returns its exit code
// and combined output.
func runExit(t *testing.T, bin string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	timer := time.AfterFunc(20*time.Second, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return 0, string(out)
}

// freePortString is a loopback port free a moment ago.
func freePortString(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

func assertAbsent(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		ents, _ := os.ReadDir(path)
		names := make([]string, len(ents))
		for i, e := range ents {
			names[i] = e.Name()
		}
		t.Errorf("%s exists after the failed command (err %v, entries %v)", path, err, names)
	}
}
