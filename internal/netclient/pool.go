package netclient

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Options configure a Pool.
type Options struct {
	// DialTimeout bounds connecting; 0 means 2 s.
	DialTimeout time.Duration
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Latency is a simulated one-way delay added before each send.
	Latency time.Duration
	// LatencyTo overrides Latency per destination host ("host:port"), so
	// members can be at different distances from each other.
	LatencyTo map[string]time.Duration
	// MaxIdle caps idle connections kept per host; 0 means 4.
	MaxIdle int
	// Auth, when set, logs every new connection in (auth.go): members
	// pass KeyFileCredential. Default nil: no authentication.
	Auth *Credential
	// TLS, when set, makes every connection TLS (tlsconf.Setup.Client:
	// net.tls.mode preferTLS or requireTLS). Default nil: plain.
	TLS *tls.Config
}

// Pool keeps idle connections per host. It is safe for concurrent use.
type Pool struct {
	opts Options
	done chan struct{} // closed by Close: stops replica-set monitors
	mu   struct {
		sync.Mutex
		idle   map[string][]*Conn
		closed bool
	}
}

// NewPool returns an empty pool.
func NewPool(opts Options) *Pool {
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = 2 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.MaxIdle <= 0 {
		opts.MaxIdle = 4
	}
	p := &Pool{opts: opts, done: make(chan struct{})}
	p.mu.idle = map[string][]*Conn{}
	return p
}

// Dial opens a dedicated connection to host (not pooled; the caller
// closes it), logged in when the pool has a credential.
func (p *Pool) Dial(ctx context.Context, host string) (*Conn, error) {
	c, err := dial(ctx, host, p.opts.DialTimeout, p.latencyFor(host), p.opts.TLS)
	if err != nil {
		return nil, err
	}
	return p.login(ctx, c)
}

// Run sends cmd to db on host over a pooled connection and returns the
// reply. ok:0 replies are *mongoerr.Error; network errors discard the
// connection and are wrapped Go errors.
func (p *Pool) Run(ctx context.Context, host, db string, cmd bson.D) (bson.D, error) {
	c, err := p.checkout(ctx, host)
	if err != nil {
		return nil, err
	}
	reply, err := c.Run(ctx, db, cmd)
	if c.broken {
		_ = c.Close()
		return nil, err
	}
	p.checkin(c)
	return reply, err
}

// Send runs cmd on host's admin database from its own goroutine, bounded
// by timeout, and calls done with the outcome; it returns at once. This is
// the replication coordinator's transport (repl.Transport).
func (p *Pool) Send(host string, cmd bson.D, timeout time.Duration, done func(bson.D, error)) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		done(p.Run(ctx, host, "admin", cmd))
	}()
}

func (p *Pool) checkout(ctx context.Context, host string) (*Conn, error) {
	p.mu.Lock()
	if p.mu.closed {
		p.mu.Unlock()
		return nil, fmt.Errorf("netclient: pool closed")
	}
	idle := p.mu.idle[host]
	if n := len(idle); n > 0 {
		c := idle[n-1]
		p.mu.idle[host] = idle[:n-1]
		p.mu.Unlock()
		return c, nil
	}
	p.mu.Unlock()
	return p.Dial(ctx, host)
}

func (p *Pool) checkin(c *Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mu.closed || len(p.mu.idle[c.host]) >= p.opts.MaxIdle {
		_ = c.Close()
		return
	}
	p.mu.idle[c.host] = append(p.mu.idle[c.host], c)
}

// Forget closes the idle connections to host (after it was seen to fail).
func (p *Pool) Forget(host string) {
	p.mu.Lock()
	idle := p.mu.idle[host]
	delete(p.mu.idle, host)
	p.mu.Unlock()
	for _, c := range idle {
		_ = c.Close()
	}
}

// Close closes every idle connection; later Runs fail.
func (p *Pool) Close() {
	p.mu.Lock()
	all := p.mu.idle
	wasClosed := p.mu.closed
	p.mu.idle, p.mu.closed = map[string][]*Conn{}, true
	p.mu.Unlock()
	if !wasClosed {
		close(p.done)
	}
	for _, idle := range all {
		for _, c := range idle {
			_ = c.Close()
		}
	}
}

// IsNetworkError reports whether err came from the network (not a reply).
func IsNetworkError(err error) bool {
	if err == nil {
		return false
	}
	_, isReply := err.(*mongoerr.Error)
	return !isReply
}

// latencyFor returns the simulated one-way delay towards host.
func (p *Pool) latencyFor(host string) time.Duration {
	if d, ok := p.opts.LatencyTo[host]; ok {
		return d
	}
	return p.opts.Latency
}
