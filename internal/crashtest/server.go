package crashtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// startTimeout bounds a server start (until it answers ping).
const startTimeout = 30 * time.Second

// Server is a Target over one `relaydb serve` process on 127.0.0.1,
// written with {w: 1, j: true}. Tests use tests/harness (tied to
// testing.TB); Server is for commands such as `relaydb bench soak`.
// Its process gets SIGKILL if the starting process dies.
type Server struct {
	Bin, DBPath, LogPath string
	Port                 int
	Args                 []string // extra serve arguments

	cmd  *exec.Cmd
	done chan struct{}
}

// StartServer starts bin on a free port with dbpath dir/data and the log
// in dir/relaydb.log, and waits until it answers ping.
func StartServer(ctx context.Context, bin, dir string, args ...string) (*Server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	s := &Server{Bin: bin, DBPath: filepath.Join(dir, "data"), LogPath: filepath.Join(dir, "relaydb.log"), Port: port, Args: args}
	if err := os.MkdirAll(s.DBPath, 0o755); err != nil {
		return nil, err
	}
	return s, s.start(ctx)
}

func (s *Server) start(ctx context.Context) error {
	logf, err := os.OpenFile(s.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	args := append([]string{"serve", "--port", strconv.Itoa(s.Port), "--bind_ip", "127.0.0.1", "--dbpath", s.DBPath}, s.Args...)
	cmd := exec.Command(s.Bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("crashtest: start %s: %w", s.Bin, err)
	}
	s.cmd, s.done = cmd, make(chan struct{})
	go func(done chan struct{}) { _ = cmd.Wait(); close(done) }(s.done)
	return s.waitReady(ctx)
}

func (s *Server) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return fmt.Errorf("crashtest: relaydb exited during startup; see %s", s.LogPath)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if s.ping(ctx) == nil {
			return nil
		}
	}
	return fmt.Errorf("crashtest: relaydb not answering ping after %v; see %s", startTimeout, s.LogPath)
}

func (s *Server) ping(ctx context.Context) error {
	cl, err := Connect(s.URI())
	if err != nil {
		return err
	}
	defer disconnect(cl)
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return cl.Database("admin").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err()
}

func (s *Server) Name() string               { return "standalone" }
func (s *Server) URI() string                { return direct(fmt.Sprintf("127.0.0.1:%d", s.Port)) }
func (s *Server) WriteConcern() WriteConcern { return WJournal }
func (s *Server) DBPaths() []string          { return []string{s.DBPath} }

// CheckURIs is the server itself.
func (s *Server) CheckURIs(context.Context) ([]string, error) { return []string{s.URI()}, nil }

// PIDs is the process id while it runs.
func (s *Server) PIDs() []int {
	if s.cmd == nil || s.exited() {
		return nil
	}
	return []int{s.cmd.Process.Pid}
}

func (s *Server) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// KillAll sends SIGKILL and waits until the process is gone.
func (s *Server) KillAll(ctx context.Context) error {
	if s.cmd == nil || s.exited() {
		return nil
	}
	_ = s.cmd.Process.Kill()
	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(10 * time.Second):
		return errors.New("crashtest: relaydb still running 10s after SIGKILL")
	}
}

// RestartAll starts the server again on the same port and data.
func (s *Server) RestartAll(ctx context.Context) error {
	if s.cmd != nil && !s.exited() {
		return errors.New("crashtest: restart of a running server")
	}
	return s.start(ctx)
}

// Stop shuts the server down: SIGTERM, a bounded wait, then SIGKILL.
func (s *Server) Stop() {
	if s.cmd == nil || s.exited() {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}
