package faultproxy

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// chunkSize is the read buffer of one direction.
const chunkSize = 32 << 10

// link is one proxied connection: the accepted client side and, unless
// it was blackholed from the start, the dialled target side.
type link struct {
	client, server net.Conn // server is nil while blackholed from accept
	swallowed      atomic.Bool
	once           sync.Once
}

func (l *link) close() {
	l.once.Do(func() {
		l.client.Close()
		if l.server != nil {
			l.server.Close()
		}
	})
}

// serve handles one accepted connection according to the mode at accept.
func (p *Proxy) serve(c net.Conn) {
	l := &link{client: c}
	p.mu.Lock()
	mode, closed := p.mu.mode, p.mu.closed
	if mode == Blackhole {
		l.swallowed.Store(true)
	}
	if mode != Drop && !closed {
		p.mu.conns[l] = struct{}{}
	}
	p.mu.Unlock()
	if mode == Drop || closed {
		c.Close()
		return
	}
	defer p.forget(l)
	if mode == Blackhole {
		discard(c) // never reaches the target; ends when Heal/Close closes c
		return
	}
	s, err := net.DialTimeout("tcp", p.target, dialTimeout)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	l.server = s
	gone := p.mu.mode == Drop || p.mu.closed
	p.mu.Unlock()
	if gone {
		l.close()
		return
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); p.pump(l, c, s) }()
	go func() { defer wg.Done(); p.pump(l, s, c) }()
	wg.Wait()
}

func (p *Proxy) forget(l *link) {
	l.close()
	p.mu.Lock()
	delete(p.mu.conns, l)
	p.mu.Unlock()
}

func discard(c net.Conn) {
	buf := make([]byte, chunkSize)
	for {
		if _, err := c.Read(buf); err != nil {
			return
		}
	}
}

// chunk is bytes read at one moment, due for delivery at due.
type chunk struct {
	b   []byte
	due time.Time
}

// pump copies src to dst through a delivery queue so a delay keeps order;
// either side failing closes the whole link.
func (p *Proxy) pump(l *link, src, dst net.Conn) {
	defer l.close()
	q := make(chan chunk, 1024)
	done := make(chan struct{})
	go func() { defer close(done); deliver(l, dst, q) }()
	defer func() { close(q); <-done }()
	buf := make([]byte, chunkSize)
	for {
		n, err := src.Read(buf)
		if n > 0 && !l.swallowed.Load() {
			b := append([]byte(nil), buf[:n]...)
			q <- chunk{b: b, due: time.Now().Add(p.currentDelay())}
		}
		if err != nil {
			return
		}
	}
}

// deliver writes queued chunks to dst when due, dropping those that were
// read before a blackhole began.
func deliver(l *link, dst net.Conn, q <-chan chunk) {
	for c := range q {
		if d := time.Until(c.due); d > 0 {
			time.Sleep(d)
		}
		if l.swallowed.Load() {
			continue
		}
		if _, err := dst.Write(c.b); err != nil {
			l.close()
			return
		}
	}
}
