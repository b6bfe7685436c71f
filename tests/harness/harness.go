// Package harness starts the real relaydb binary on loopback for integration
// tests and hands out official-driver clients connected to it.
//
// Invariants:
//   - The binary is built at most once per test process (or taken from
//     $RELAYDB_BIN), never into the source tree.
//   - Every started server is stopped by t.Cleanup: SIGTERM, a bounded wait,
//     then SIGKILL. No test leaves a process behind.
//   - A server's stderr/stdout go to a log file; its tail is printed when the
//     test that owns the server fails, or when startup fails.
//   - Restart reuses the same port and dbpath, so clients created from URI()
//     keep working after a restart.
package harness

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

const (
	startTimeout = 20 * time.Second // bound on waiting for the first ping
	stopTimeout  = 10 * time.Second // bound on a graceful SIGTERM shutdown
	logTailBytes = 8 << 10          // how much of the log to print on failure
)

// Option configures Start.
type Option func(*config)

type config struct {
	args    []string
	dbPath  string
	uriOpts string // appended to URI's query (tls.go)
}

// WithArgs appends extra command-line arguments to `relaydb serve`.
func WithArgs(extra ...string) Option {
	return func(c *config) { c.args = append(c.args, extra...) }
}

// WithDBPath uses dir as the data directory instead of a fresh t.TempDir().
func WithDBPath(dir string) Option {
	return func(c *config) { c.dbPath = dir }
}

var build struct {
	once sync.Once
	path string
	err  error
}

// Binary returns the path of the relaydb binary, building it on first use.
// $RELAYDB_BIN, when set, is used as is.
func Binary() (string, error) {
	build.once.Do(func() {
		if p := os.Getenv("RELAYDB_BIN"); p != "" {
			build.path = p
			return
		}
		build.path, build.err = buildBinary()
	})
	return build.path, build.err
}

func buildBinary() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "relaydb-harness-")
	if err != nil {
		return "", fmt.Errorf("harness: temp dir for binary: %w", err)
	}
	out := filepath.Join(dir, "relaydb")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/relaydb")
	cmd.Dir = root
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("harness: go build ./cmd/relaydb: %w\n%s", err, msg)
	}
	return out, nil
}

// moduleRoot asks the go command for the directory holding go.mod.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("harness: go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("harness: not inside a Go module")
	}
	return filepath.Dir(gomod), nil
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("harness: pick port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// ping connects with the official driver and runs {ping: 1}.
func ping(ctx context.Context, uri string) error {
	opts := options.Client().ApplyURI(uri).
		SetServerSelectionTimeout(2 * time.Second).
		SetConnectTimeout(2 * time.Second)
	c, err := mongo.Connect(opts)
	if err != nil {
		return err
	}
	defer c.Disconnect(context.Background())
	return c.Database("admin").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err()
}

// tail returns at most n bytes from the end of the file at path.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read log %s: %v)", path, err)
	}
	if len(b) > n {
		b = b[len(b)-n:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return string(b)
}

func itoa(n int) string { return strconv.Itoa(n) }
