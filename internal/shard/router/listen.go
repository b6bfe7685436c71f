package router

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/wire"
)

// Listener serves the wire protocol for a Router: one goroutine per
// connection reads a message, hands it to the router and writes the reply
// (OP_MSG, OP_COMPRESSED, the legacy OP_QUERY handshake).
//
// It is a stand-in: internal/server serves only *command.Dispatcher today.
// Once server.New takes an interface with Handle, HandleLegacy,
// ErrorReply, ConnClosed and connection counting (the methods Router has),
// the router serves with internal/server and this file goes (TODO(#11)).
type Listener struct {
	r              *Router
	log            *slog.Logger
	maxConns       int
	messageTimeout time.Duration
	listeners      []net.Listener
	wg             sync.WaitGroup
	mu             struct {
		sync.Mutex
		conns  map[net.Conn]struct{}
		closed bool
		nextID int64
	}
}

// maxMessage is MongoDB's maxMessageSizeBytes.
const maxMessage = 48_000_000

// Listen binds every address in addrs (it fails as a whole).
func Listen(r *Router, addrs []string, maxConns int, log *slog.Logger) (*Listener, error) {
	l := &Listener{r: r, log: log, maxConns: maxConns, messageTimeout: 30 * time.Second}
	l.mu.conns = map[net.Conn]struct{}{}
	for _, a := range addrs {
		ln, err := net.Listen("tcp", a)
		if err != nil {
			for _, o := range l.listeners {
				o.Close()
			}
			return nil, fmt.Errorf("listen on %s: %w", a, err)
		}
		l.listeners = append(l.listeners, ln)
	}
	return l, nil
}

// Addr is the first bound address.
func (l *Listener) Addr() net.Addr { return l.listeners[0].Addr() }

// Serve accepts connections until Shutdown.
func (l *Listener) Serve() {
	var wg sync.WaitGroup
	for _, ln := range l.listeners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.acceptLoop(ln)
		}()
	}
	wg.Wait()
}

func (l *Listener) acceptLoop(ln net.Listener) {
	delay := 5 * time.Millisecond
	for {
		nc, err := ln.Accept()
		if err != nil {
			if l.closed() {
				return
			}
			l.log.Warn("accept failed; retrying", "err", err)
			time.Sleep(delay)
			delay = min(2*delay, time.Second)
			continue
		}
		delay = 5 * time.Millisecond
		id, ok := l.track(nc)
		if !ok {
			nc.Close()
			continue
		}
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			l.serveConn(nc, id)
		}()
	}
}

// track registers nc; false when closed or at maxConns.
func (l *Listener) track(nc net.Conn) (int64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.mu.closed || (l.maxConns > 0 && len(l.mu.conns) >= l.maxConns) {
		return 0, false
	}
	l.mu.conns[nc] = struct{}{}
	l.mu.nextID++
	return l.mu.nextID, true
}

func (l *Listener) closed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mu.closed
}

func (l *Listener) serveConn(nc net.Conn, id int64) {
	state := command.NewConn(id, nc.RemoteAddr().String(), nc.LocalAddr().String())
	l.r.ConnOpened()
	defer func() {
		if p := recover(); p != nil {
			l.log.Error("connection handler panicked; closing connection", "conn", id, "panic", p)
		}
		l.r.ConnClosed(state)
		nc.Close()
		l.mu.Lock()
		delete(l.mu.conns, nc)
		l.mu.Unlock()
	}()
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	br := bufio.NewReaderSize(nc, 16<<10)
	var out []byte
	for {
		if _, err := br.Peek(1); err != nil {
			return
		}
		_ = nc.SetReadDeadline(time.Now().Add(l.messageTimeout))
		hdr, body, err := wire.ReadMessage(br, maxMessage)
		_ = nc.SetReadDeadline(time.Time{})
		if err != nil {
			return
		}
		var ok bool
		if out, ok = l.handle(state, hdr, body, out[:0]); !ok {
			return
		}
		if len(out) > 0 {
			if _, err := nc.Write(out); err != nil {
				return
			}
		}
		if l.closed() && br.Buffered() == 0 {
			return
		}
	}
}

// handle serves one message and appends the framed reply to out (nothing
// for moreToCome); false closes the connection.
func (l *Listener) handle(state *command.Conn, hdr wire.Header, body, out []byte) ([]byte, bool) {
	op, compressor := hdr.OpCode, byte(0)
	if op == wire.OpCompressed {
		orig, data, err := wire.ParseCompressed(body, maxMessage)
		if err != nil {
			return out, false
		}
		op, body, compressor = orig, data, body[8]
	}
	var reply []byte
	replyOp := wire.OpMsg
	switch op {
	case wire.OpMsg:
		msg, err := wire.ParseMsg(body)
		if err != nil {
			if msg == nil || msg.Flags&wire.MoreToCome != 0 {
				return out, false
			}
			reply = l.r.ErrorReply(err)
			break
		}
		req := &command.Request{Body: msg.Body, MoreToCome: msg.Flags&wire.MoreToCome != 0}
		for _, s := range msg.Sequences {
			req.Sequences = append(req.Sequences, command.Sequence{Identifier: s.Identifier, Docs: s.Docs})
		}
		reply = l.r.Handle(state, req)
		if req.MoreToCome {
			return out, true
		}
	case wire.OpQuery:
		q, err := wire.ParseQuery(body)
		if err != nil {
			return out, false
		}
		reply, replyOp = l.r.HandleLegacy(state, q.FullCollectionName, q.Query), wire.OpReply
	default:
		return out, false
	}
	return frame(out, hdr, replyOp, reply, compressor)
}

var replyIDs atomic.Int32

func frame(out []byte, req wire.Header, op wire.OpCode, reply []byte, compressor byte) ([]byte, bool) {
	id := replyIDs.Add(1)
	if op == wire.OpReply {
		out = wire.AppendReply(out, id, req.RequestID, 0, 0, 0, reply)
	} else {
		out = wire.AppendMsg(out, id, req.RequestID, 0, reply)
	}
	if compressor == 0 {
		return out, true
	}
	c, err := wire.AppendCompressed(nil, id, req.RequestID, op, compressor, out[16:])
	if err != nil {
		return out, false
	}
	return c, true
}

// Shutdown stops accepting, ends idle connections and waits (bounded by
// ctx) for in-flight requests.
func (l *Listener) Shutdown(ctx context.Context) {
	l.mu.Lock()
	l.mu.closed = true
	for _, ln := range l.listeners {
		ln.Close()
	}
	for nc := range l.mu.conns {
		if tc, ok := nc.(*net.TCPConn); ok {
			_ = tc.CloseRead()
		} else {
			nc.Close()
		}
	}
	l.mu.Unlock()
	done := make(chan struct{})
	go func() { l.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		l.mu.Lock()
		for nc := range l.mu.conns {
			nc.Close()
		}
		l.mu.Unlock()
	}
}
