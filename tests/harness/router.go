package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Router is one running `relaydb router` process (mongos's role).
type Router struct {
	port    int
	logPath string
	cmd     *exec.Cmd
	done    chan struct{}
}

// StartRouter starts `relaydb router --configdb configDB` on a free
// loopback port, waits until it answers ping and stops it in t.Cleanup
// (SIGTERM, bounded wait, SIGKILL), printing its log tail if t failed.
func StartRouter(t testing.TB, configDB string, extra ...string) *Router {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		t.Fatalf("%v", err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatalf("%v", err)
	}
	r := &Router{port: port, logPath: filepath.Join(t.TempDir(), "router.log"), done: make(chan struct{})}
	logf, err := os.Create(r.logPath)
	if err != nil {
		t.Fatalf("harness: router log: %v", err)
	}
	args := append([]string{"router", "--configdb", configDB, "--port", itoa(port), "--bind_ip", "127.0.0.1"}, extra...)
	r.cmd = exec.Command(bin, args...)
	r.cmd.Stdout, r.cmd.Stderr = logf, logf
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := r.cmd.Start(); err != nil {
		logf.Close()
		t.Fatalf("harness: start router: %v", err)
	}
	go func() {
		_ = r.cmd.Wait()
		logf.Close()
		close(r.done)
	}()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("router log tail (%s):\n%s", r.logPath, tail(r.logPath, logTailBytes))
		}
		r.Stop()
	})
	if err := r.waitReady(); err != nil {
		t.Fatalf("%v\nrouter log tail:\n%s", err, tail(r.logPath, logTailBytes))
	}
	return r
}

// URI is the router's connection string (no directConnection, so drivers
// discover it as mongos).
func (r *Router) URI() string { return fmt.Sprintf("mongodb://127.0.0.1:%d/", r.port) }

// Host is the router's host:port.
func (r *Router) Host() string { return fmt.Sprintf("127.0.0.1:%d", r.port) }

// LogPath is the file receiving the router's output.
func (r *Router) LogPath() string { return r.logPath }

func (r *Router) waitReady() error {
	deadline := time.Now().Add(startTimeout)
	var last error
	for time.Now().Before(deadline) {
		select {
		case <-r.done:
			return fmt.Errorf("harness: router exited during startup")
		default:
		}
		if last = tryPing(r.Host(), r.URI()); last == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("harness: router not ready after %v: %v", startTimeout, last)
}

// Stop sends SIGTERM, waits up to stopTimeout, then SIGKILL. Idempotent.
func (r *Router) Stop() {
	select {
	case <-r.done:
		return
	default:
	}
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(stopTimeout):
		_ = r.cmd.Process.Kill()
		<-r.done
	}
}
