package faultproxy

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// Mode is what a Proxy does with traffic.
type Mode int

// Proxy modes; see the package comment.
const (
	Pass Mode = iota
	Drop
	Blackhole
)

func (m Mode) String() string {
	switch m {
	case Pass:
		return "pass"
	case Drop:
		return "drop"
	case Blackhole:
		return "blackhole"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// dialTimeout bounds the connection to the target.
const dialTimeout = 2 * time.Second

// Proxy forwards connections from its listen address to a target.
type Proxy struct {
	ln     net.Listener
	target string

	mu struct {
		sync.Mutex
		mode   Mode
		delay  time.Duration
		conns  map[*link]struct{}
		closed bool
	}
	wg sync.WaitGroup
}

// New listens on listen (e.g. "127.0.0.1:0") and forwards to target.
func New(listen, target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("faultproxy: listen %s: %w", listen, err)
	}
	p := &Proxy{ln: ln, target: target}
	p.mu.conns = map[*link]struct{}{}
	p.wg.Add(1)
	go p.acceptLoop()
	return p, nil
}

// Addr is the address the proxy listens on.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Target is the address the proxy forwards to.
func (p *Proxy) Target() string { return p.target }

// Mode is the current mode.
func (p *Proxy) Mode() Mode {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mu.mode
}

// Drop closes every connection and refuses (accepts and closes) new ones.
func (p *Proxy) Drop() {
	p.mu.Lock()
	p.mu.mode = Drop
	links := p.linksLocked()
	p.mu.Unlock()
	for _, l := range links {
		l.close()
	}
}

// Blackhole stops forwarding on every connection, open or new.
func (p *Proxy) Blackhole() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mu.mode = Blackhole
	for l := range p.mu.conns {
		l.swallowed.Store(true)
	}
}

// Delay makes every chunk forwarded from now on arrive d later (0 = none).
func (p *Proxy) Delay(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mu.delay = d
}

// Heal returns to Pass with no delay and closes the connections that
// were blackholed.
func (p *Proxy) Heal() {
	p.mu.Lock()
	p.mu.mode, p.mu.delay = Pass, 0
	var dead []*link
	for l := range p.mu.conns {
		if l.swallowed.Load() {
			dead = append(dead, l)
		}
	}
	p.mu.Unlock()
	for _, l := range dead {
		l.close()
	}
}

// Conns is the number of open proxied connections.
func (p *Proxy) Conns() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.mu.conns)
}

// Close stops listening, closes every connection and waits for the
// proxy's goroutines.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.mu.closed = true
	links := p.linksLocked()
	p.mu.Unlock()
	err := p.ln.Close()
	for _, l := range links {
		l.close()
	}
	p.wg.Wait()
	return err
}

// REQUIRES: p.mu
func (p *Proxy) linksLocked() []*link {
	out := make([]*link, 0, len(p.mu.conns))
	for l := range p.mu.conns {
		out = append(out, l)
	}
	return out
}

func (p *Proxy) acceptLoop() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(10 * time.Millisecond) // transient (e.g. EMFILE)
			continue
		}
		p.wg.Add(1)
		go func() { defer p.wg.Done(); p.serve(c) }()
	}
}

// currentDelay is the delay for a chunk read now.
func (p *Proxy) currentDelay() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mu.delay
}
