package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/relaydb/relaydb/internal/allowlist"
	"github.com/relaydb/relaydb/internal/command"
)

// DefaultMessageTimeout is Config.MessageTimeout's default.
const DefaultMessageTimeout = 30 * time.Second

// Config is what the server needs beyond the command layer.
type Config struct {
	Addrs    []string // host:port to listen on
	MaxConns int      // 0 = unlimited
	// TLS is net.tls.* (tls.go); the zero value serves plain only.
	TLS TLS

	// MessageTimeout is the longest a message may take to arrive once its
	// first byte has; a peer that stalls mid-message is disconnected then.
	// An idle connection (between messages) is never timed out, as with
	// mongod. Default 30s (DefaultMessageTimeout); negative disables.
	MessageTimeout time.Duration
	Logger         *slog.Logger
	// Allowlist, when set, refuses clients it excludes (allowlist.go).
	Allowlist *allowlist.Matcher
	// Listeners, when set, are Addrs bound already (Bind); the server
	// owns them from New on.
	Listeners []net.Listener
}

// ensureDefaults replaces zero fields with their defaults.
func (c *Config) ensureDefaults() {
	if c.MessageTimeout == 0 {
		c.MessageTimeout = DefaultMessageTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

// Handler answers the requests of a connection: *command.Dispatcher on a
// data node, the router (shard/router) on a router.
type Handler interface {
	// Handle runs one OP_MSG request and returns the encoded reply document.
	Handle(conn *command.Conn, req *command.Request) []byte
	// HandleLegacy runs a command sent as OP_QUERY on "<db>.$cmd".
	HandleLegacy(conn *command.Conn, fullName string, query []byte) []byte
	// ErrorReply encodes err as an {ok: 0} reply.
	ErrorReply(err error) []byte
	// ConnOpened and ConnClosed bracket every connection (ConnClosed also
	// releases what the connection held).
	ConnOpened()
	ConnClosed(conn *command.Conn)
}

// Server accepts connections and serves the wire protocol.
type Server struct {
	cfg       Config
	cmds      Handler
	log       *slog.Logger
	listeners []net.Listener

	nextConnID atomic.Int64
	open       atomic.Int64
	// closing mirrors mu.closed for the per-request check of every
	// connection, which should not take the server's mutex.
	closing atomic.Bool

	now   func() time.Time    // time.Now; tests replace it
	sleep func(time.Duration) // time.Sleep; tests replace it

	mu struct {
		sync.Mutex
		conns  map[*conn]struct{}
		closed bool
	}
	wg sync.WaitGroup
}

// New returns a server; Listen binds its addresses.
func New(cfg Config, cmds Handler) *Server {
	cfg.ensureDefaults()
	s := &Server{cfg: cfg, cmds: cmds, log: cfg.Logger, now: time.Now, sleep: time.Sleep}
	s.mu.conns = map[*conn]struct{}{}
	return s
}

// ErrAddrInUse is returned by Listen when a port is taken.
var ErrAddrInUse = errors.New("address already in use")

// Listen binds every configured address (or takes Config.Listeners, bound
// before). It fails as a whole.
func (s *Server) Listen() error {
	if len(s.cfg.Listeners) > 0 {
		s.listeners = s.cfg.Listeners
		return nil
	}
	ls, err := Bind(s.cfg.Addrs)
	s.listeners = ls
	return err
}

// Bind listens on every address of addrs, or on none (it closes what it
// bound when one fails; a taken port is ErrAddrInUse). A data node binds
// before it opens its storage, so a taken port leaves no store behind.
func Bind(addrs []string) ([]net.Listener, error) {
	var ls []net.Listener
	for _, a := range addrs {
		l, err := net.Listen("tcp", a)
		if err != nil {
			for _, o := range ls {
				o.Close()
			}
			if isAddrInUse(err) {
				return nil, fmt.Errorf("listen on %s: %w", a, ErrAddrInUse)
			}
			return nil, fmt.Errorf("listen on %s: %w", a, err)
		}
		ls = append(ls, l)
	}
	return ls, nil
}

// Addr returns the first bound address (useful with port 0).
func (s *Server) Addr() net.Addr { return s.listeners[0].Addr() }

// Serve accepts connections until Shutdown. It blocks.
func (s *Server) Serve() {
	defer s.startAllowlistWatch()()
	var wg sync.WaitGroup
	for _, l := range s.listeners {
		wg.Add(1)
		go func(l net.Listener) {
			defer wg.Done()
			s.acceptLoop(l)
		}(l)
	}
	wg.Wait()
}

func (s *Server) newConn(nc net.Conn) *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.closed {
		return nil
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	c := newConn(s, nc, s.nextConnID.Add(1))
	s.mu.conns[c] = struct{}{}
	s.open.Add(1)
	s.cmds.ConnOpened()
	return c
}

func (s *Server) dropConn(c *conn) {
	s.mu.Lock()
	delete(s.mu.conns, c)
	s.mu.Unlock()
	s.open.Add(-1)
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mu.closed
}

// Shutdown stops accepting, closes idle connections and waits (bounded by
// ctx) for in-flight requests to finish.
func (s *Server) Shutdown(ctx context.Context) {
	s.mu.Lock()
	s.mu.closed = true
	s.closing.Store(true)
	for _, l := range s.listeners {
		l.Close()
	}
	for c := range s.mu.conns {
		c.closeRead()
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		s.mu.Lock()
		for c := range s.mu.conns {
			c.nc.Close()
		}
		s.mu.Unlock()
	}
}
