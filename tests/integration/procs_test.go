package integration

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/relaydb/relaydb/tests/harness"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// proc is a relaydb process started directly (not through the harness),
// for tests that need its exit code and output.
type proc struct {
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
	code int // valid after done is closed; -1 when killed by a signal
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startProc runs the relaydb binary with args; t.Cleanup kills it if alive.
func startProc(t *testing.T, args ...string) *proc {
	t.Helper()
	bin, err := harness.Binary()
	if err != nil {
		t.Fatalf("relaydb binary: %v", err)
	}
	p := &proc{cmd: exec.Command(bin, args...), out: &syncBuffer{}, done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %v: %v", args, err)
	}
	go func() {
		err := p.cmd.Wait()
		p.code = 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			p.code = ee.ExitCode()
		} else if err != nil {
			p.code = -2
		}
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("output of relaydb %v:\n%s", args, p.out.String())
		}
	})
	return p
}

// wait returns the exit code, or fails t if the process outlives d.
func (p *proc) wait(t *testing.T, d time.Duration, what string) int {
	t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(d):
		t.Fatalf("%s: relaydb still running after %v", what, d)
		return 0
	}
}

// startServeProc starts `relaydb serve` on a free port and waits for ping.
func startServeProc(t *testing.T, dbpath string) (*proc, *mongo.Client) {
	t.Helper()
	port := freePort(t)
	p := startProc(t, "serve", "--port", itoa(port), "--bind_ip", "127.0.0.1", "--dbpath", dbpath)
	uri := "mongodb://127.0.0.1:" + itoa(port) + "/?directConnection=true"
	c, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(2 * time.Second))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	deadline := time.Now().Add(20 * time.Second)
	for {
		if conn, err := net.DialTimeout("tcp", "127.0.0.1:"+itoa(port), time.Second); err != nil {
			select {
			case <-p.done:
				t.Fatalf("relaydb exited during startup with code %d:\n%s", p.code, p.out.String())
			case <-time.After(20 * time.Millisecond):
			}
			continue
		} else {
			conn.Close()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err()
		cancel()
		if err == nil {
			return p, c
		}
		select {
		case <-p.done:
			t.Fatalf("relaydb exited during startup with code %d:\n%s", p.code, p.out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("relaydb not ready after 20s: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("pick port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
