package server

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"sync/atomic"
	"time"

	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/wire"
)

// maxMessageSize is MongoDB's maxMessageSizeBytes.
const maxMessageSize = 48_000_000

type conn struct {
	srv   *Server
	nc    net.Conn
	rw    net.Conn // nc, or the TLS connection over it (tls.go)
	r     *bufio.Reader
	state *command.Conn
	out   []byte // framed reply buffer, reused
	// reply is the buffer the command layer encodes replies into
	// (command.Request.ReplyBuf), reused from request to request.
	reply []byte
	reqID atomic.Int32
}

// maxKeptBuffer bounds the buffers an idle connection keeps.
const maxKeptBuffer = 1 << 20

func newConn(s *Server, nc net.Conn, id int64) *conn {
	return &conn{
		srv:   s,
		nc:    nc,
		rw:    nc,
		r:     bufio.NewReaderSize(nc, 16<<10),
		state: command.NewConn(id, nc.RemoteAddr().String(), nc.LocalAddr().String()),
	}
}

// closeRead unblocks a connection waiting for its next request.
func (c *conn) closeRead() {
	if tc, ok := c.nc.(*net.TCPConn); ok {
		tc.CloseRead()
		return
	}
	c.nc.Close()
}

func (c *conn) serve() {
	defer func() {
		if r := recover(); r != nil {
			c.srv.log.Error("connection handler panicked; closing connection", "conn", c.state.ID, "panic", r)
		}
		c.srv.cmds.ConnClosed(c.state)
		c.nc.Close()
		c.srv.dropConn(c)
	}()
	if !c.startTLS() {
		return
	}
	for {
		hdr, body, err := c.readMessage()
		if err != nil {
			c.logReadError(err)
			return
		}
		if !c.handle(hdr, body) {
			return
		}
		if c.srv.closing.Load() && c.r.Buffered() == 0 {
			return
		}
	}
}

// readMessage waits for a message's first byte with no deadline (an idle
// connection may stay open), then gives the whole message MessageTimeout
// to arrive. A message already wholly buffered needs no deadline (most
// requests arrive in one read; arming and disarming the timer is a
// measurable share of a router's per-request CPU).
func (c *conn) readMessage() (wire.Header, []byte, error) {
	if _, err := c.r.Peek(1); err != nil {
		return wire.Header{}, nil, err
	}
	if d := c.srv.cfg.MessageTimeout; d > 0 && !c.buffered() {
		if err := c.nc.SetReadDeadline(time.Now().Add(d)); err != nil {
			return wire.Header{}, nil, err
		}
		defer c.nc.SetReadDeadline(time.Time{})
	}
	return wire.ReadMessage(c.r, maxMessageSize)
}

// buffered reports whether a whole message (by its length prefix) is in
// the read buffer.
func (c *conn) buffered() bool {
	n := c.r.Buffered()
	if n < 4 {
		return false
	}
	b, _ := c.r.Peek(4)
	size := int32(binary.LittleEndian.Uint32(b))
	return size >= 4 && int(size) <= n
}

func (c *conn) logReadError(err error) {
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed):
	case errors.Is(err, os.ErrDeadlineExceeded):
		c.srv.log.Info("closing connection: message not completed in time", "conn", c.state.ID,
			"remote", c.state.Remote, "timeoutMillis", c.srv.cfg.MessageTimeout.Milliseconds())
	default:
		c.srv.log.Debug("closing connection after read error", "conn", c.state.ID, "err", err)
	}
}

// handle serves one message; false closes the connection.
func (c *conn) handle(hdr wire.Header, body []byte) bool {
	op, compressor := hdr.OpCode, byte(0)
	if op == wire.OpCompressed {
		orig, data, err := wire.ParseCompressed(body, maxMessageSize)
		if err != nil {
			c.srv.log.Info("closing connection: bad OP_COMPRESSED", "conn", c.state.ID, "err", err)
			return false
		}
		if orig == wire.OpMsg {
			inner := wire.Header{RequestID: hdr.RequestID, ResponseTo: hdr.ResponseTo, OpCode: orig}
			if err := wire.VerifyChecksum(inner, data); err != nil {
				c.srv.log.Info("closing connection: bad checksum in OP_COMPRESSED", "conn", c.state.ID, "err", err)
				return false
			}
		}
		op, body, compressor = orig, data, body[8]
	}
	switch op {
	case wire.OpMsg:
		return c.handleMsg(hdr, body, compressor)
	case wire.OpQuery:
		return c.handleQuery(hdr, body, compressor)
	default:
		c.srv.log.Info("closing connection: unsupported opcode", "conn", c.state.ID, "opcode", int32(op))
		return false
	}
}

func (c *conn) handleMsg(hdr wire.Header, body []byte, compressor byte) bool {
	msg, err := wire.ParseMsg(body)
	if err != nil {
		if msg == nil || msg.Flags&wire.MoreToCome != 0 {
			return false
		}
		reply := c.srv.cmds.ErrorReply(err)
		return c.send(hdr, wire.OpMsg, reply, compressor)
	}
	if c.reply == nil {
		c.reply = make([]byte, 0, 4<<10)
	}
	req := &command.Request{Body: msg.Body, MoreToCome: msg.Flags&wire.MoreToCome != 0, ReplyBuf: c.reply}
	for _, s := range msg.Sequences {
		req.Sequences = append(req.Sequences, command.Sequence{Identifier: s.Identifier, Docs: s.Docs})
	}
	reply := c.srv.cmds.Handle(c.state, req)
	defer c.keepReplyBuf(req)
	if req.CloseConn {
		return false
	}
	if req.MoreToCome {
		return true
	}
	if msg.Flags&wire.ExhaustAllowed != 0 && exhaustible(msg.Body) {
		return c.exhaust(hdr, req, reply, compressor) // exhaust.go
	}
	return c.send(hdr, wire.OpMsg, reply, compressor)
}

// keepReplyBuf takes back the reply buffer the command layer used (grown
// perhaps) once its reply has been sent; a large one is dropped.
func (c *conn) keepReplyBuf(req *command.Request) {
	c.reply = req.ReplyBuf[:0]
	if cap(c.reply) > maxKeptBuffer {
		c.reply = nil
	}
}

func (c *conn) handleQuery(hdr wire.Header, body []byte, compressor byte) bool {
	q, err := wire.ParseQuery(body)
	if err != nil {
		c.srv.log.Info("closing connection: bad OP_QUERY", "conn", c.state.ID, "err", err)
		return false
	}
	reply := c.srv.cmds.HandleLegacy(c.state, q.FullCollectionName, q.Query)
	return c.send(hdr, wire.OpReply, reply, compressor)
}

// send frames reply (a BSON document) as the given opcode and writes it.
func (c *conn) send(req wire.Header, op wire.OpCode, reply []byte, compressor byte) bool {
	_, ok := c.sendFlags(req, op, reply, compressor, 0)
	return ok
}

// sendFlags is send with OP_MSG flags (moreToCome for an exhaust stream);
// it returns the reply's requestID.
func (c *conn) sendFlags(req wire.Header, op wire.OpCode, reply []byte, compressor byte, flags uint32) (int32, bool) {
	id := c.reqID.Add(1)
	c.out = c.out[:0]
	if op == wire.OpReply {
		c.out = wire.AppendReply(c.out, id, req.RequestID, 0, 0, 0, reply)
	} else {
		c.out = wire.AppendMsg(c.out, id, req.RequestID, flags, reply)
	}
	if compressor != 0 {
		out, err := wire.AppendCompressed(nil, id, req.RequestID, op, compressor, c.out[16:])
		if err != nil {
			c.srv.log.Error("compressing reply failed", "conn", c.state.ID, "err", err)
			return id, false
		}
		c.out = out
	}
	if _, err := c.rw.Write(c.out); err != nil {
		return id, false
	}
	if cap(c.out) > maxKeptBuffer {
		c.out = nil // don't pin large buffers on idle connections
	}
	return id, true
}
