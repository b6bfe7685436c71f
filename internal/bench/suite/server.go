package suite

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// serverStartTimeout bounds how long a started relaydb may take to answer.
const serverStartTimeout = 30 * time.Second

// Server is a relaydb the suite started on loopback with a temporary dbpath.
type Server struct {
	URI    string
	cmd    *exec.Cmd
	dbPath string
	exited chan error
}

// freePort asks the kernel for an unused loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// StartServer runs "binary serve" on a free loopback port with a fresh
// dbpath, logging to logOut, and waits until it answers ping.
func StartServer(ctx context.Context, binary string, logOut io.Writer) (*Server, error) {
	return StartServerWith(ctx, binary, ServerOptions{}, logOut)
}

// ServerOptions vary the server StartServerWith starts.
type ServerOptions struct {
	Args     []string // more "serve" flags (--auth, --tlsMode ...)
	URIQuery string   // options of the URI that reaches it ("tls=true&tlsCAFile=...")
}

// StartServerWith is StartServer with more flags and URI options.
func StartServerWith(ctx context.Context, binary string, o ServerOptions, logOut io.Writer) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "relaydb-bench-")
	if err != nil {
		return nil, fmt.Errorf("temp dbpath: %w", err)
	}
	args := append([]string{"serve", "--port", strconv.Itoa(port), "--bind_ip", "127.0.0.1",
		"--dbpath", filepath.Join(dir, "db")}, o.Args...)
	cmd := exec.Command(binary, args...)
	cmd.Stdout, cmd.Stderr = logOut, logOut
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start %s: %w", binary, err)
	}
	uri := fmt.Sprintf("mongodb://127.0.0.1:%d/ycsb", port)
	if o.URIQuery != "" {
		uri += "?" + o.URIQuery
	}
	s := &Server{URI: uri, cmd: cmd, dbPath: dir, exited: make(chan error, 1)}
	go func() { s.exited <- cmd.Wait() }()
	if err := s.waitReady(ctx); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

func (s *Server) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(serverStartTimeout)
	for time.Now().Before(deadline) {
		select {
		case err := <-s.exited:
			s.exited <- err
			return fmt.Errorf("relaydb exited during startup: %v", err)
		default:
		}
		if ping(ctx, s.URI) == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("relaydb at %s did not answer within %s", s.URI, serverStartTimeout)
}

func ping(ctx context.Context, uri string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	cl, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(time.Second))
	if err != nil {
		return err
	}
	defer cl.Disconnect(context.Background())
	return cl.Database("admin").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err()
}

// Stop sends SIGTERM, waits (killing after 15 s) and removes the dbpath.
func (s *Server) Stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(15 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
	os.RemoveAll(s.dbPath)
}
