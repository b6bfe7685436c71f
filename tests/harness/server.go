package harness

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Server is one running (or stopped) `relaydb serve` process.
type Server struct {
	bin     string
	port    int
	dbPath  string
	logPath string
	args    []string
	uriOpts string // appended to URI's query (WithURIOptions)

	mu   sync.Mutex
	proc *process // REQUIRES: mu; nil when not running
	runs int      // REQUIRES: mu; number of starts, names log files
}

// process is one OS process and the channel closed when it exits.
type process struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error // valid after done is closed
	log  *os.File
}

// Start builds (once) and starts a relaydb server, waits until it answers
// ping and registers its shutdown with t.Cleanup. It fails t on error.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	var c config
	for _, o := range opts {
		o(&c)
	}
	bin, err := Binary()
	if err != nil {
		t.Fatalf("%v", err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatalf("%v", err)
	}
	if c.dbPath == "" {
		c.dbPath = t.TempDir()
	}
	s := &Server{bin: bin, port: port, dbPath: c.dbPath, args: c.args, uriOpts: c.uriOpts}
	s.logPath = filepath.Join(t.TempDir(), "relaydb.log")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("relaydb log tail (%s):\n%s", s.logPath, tail(s.logPath, logTailBytes))
		}
		s.Stop()
	})
	if err := s.start(); err != nil {
		t.Fatalf("%v", err)
	}
	return s
}

// URI is the connection string of the server.
func (s *Server) URI() string {
	return fmt.Sprintf("mongodb://127.0.0.1:%d/?directConnection=true", s.port) + s.uriOpts
}

// Port is the TCP port the server listens on.
func (s *Server) Port() int { return s.port }

// DBPath is the server's data directory.
func (s *Server) DBPath() string { return s.dbPath }

// LogPath is the file receiving the server's stderr and stdout.
func (s *Server) LogPath() string { return s.logPath }

// Client returns a connected client; it is disconnected by t.Cleanup.
func (s *Server) Client(t testing.TB) *mongo.Client {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(s.URI()))
	if err != nil {
		t.Fatalf("harness: connect %s: %v", s.URI(), err)
	}
	t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	return c
}

// start launches the process and waits until it answers ping.
func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc != nil {
		return errors.New("harness: server already running")
	}
	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("harness: open log: %w", err)
	}
	s.runs++
	fmt.Fprintf(logf, "=== harness: start #%d ===\n", s.runs)
	args := append([]string{"serve", "--port", itoa(s.port), "--bind_ip", "127.0.0.1",
		"--dbpath", s.dbPath}, s.args...)
	cmd := exec.Command(s.bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("harness: start %s: %w", s.bin, err)
	}
	p := &process{cmd: cmd, done: make(chan struct{}), log: logf}
	go func() {
		p.err = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	s.proc = p
	if err := s.waitReady(p); err != nil {
		s.killLocked()
		return fmt.Errorf("%w\nlog tail:\n%s", err, tail(s.logPath, logTailBytes))
	}
	return nil
}

// waitReady polls TCP connect + ping until success, exit or startTimeout.
func (s *Server) waitReady(p *process) error {
	deadline := time.Now().Add(startTimeout)
	addr := fmt.Sprintf("127.0.0.1:%d", s.port)
	var last error
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			return fmt.Errorf("harness: relaydb exited during startup: %v", p.err)
		default:
		}
		last = tryPing(addr, s.URI())
		if last == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("harness: relaydb not ready after %v: %v", startTimeout, last)
}

func tryPing(addr, uri string) error {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	return ping(ctx, uri)
}

// Stop shuts the server down: SIGTERM, wait up to stopTimeout, then SIGKILL.
// It is a no-op when the server is not running.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.proc
	if p == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(stopTimeout):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	s.proc = nil
}

// Kill9 kills the server with SIGKILL and waits for it to be gone.
func (s *Server) Kill9() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.killLocked()
}

// REQUIRES: s.mu
func (s *Server) killLocked() {
	if s.proc == nil {
		return
	}
	_ = s.proc.cmd.Process.Kill()
	<-s.proc.done
	s.proc = nil
}

// Restart stops the server if it runs (gracefully) and starts it again on
// the same port and dbpath. It fails t on error.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Stop()
	if err := s.start(); err != nil {
		t.Fatalf("harness: restart: %v", err)
	}
}

// Running reports whether the process is alive (started and not exited).
func (s *Server) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return false
	}
	select {
	case <-s.proc.done:
		return false
	default:
		return true
	}
}
