package server

import (
	"bufio"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"time"

	"github.com/relaydb/relaydb/internal/tlsconf"
)

// DefaultTLSHandshakeTimeout is TLS.HandshakeTimeout's default.
const DefaultTLSHandshakeTimeout = 10 * time.Second

// TLS configures the server's TLS (net.tls.*, issue #13).
//
// In allowTLS and preferTLS a port serves TLS and plain connections: the
// first bytes tell them apart, as mongod does. A TLS record carrying a
// ClientHello starts 0x16 0x03 (handshake, TLS major version) and its
// sixth byte is 0x01 (ClientHello); a plain connection starts with a wire
// message's little-endian length. The ambiguity: a plain first message
// whose length is 0x??..0316 (790, 66326, ... bytes) and whose request
// id's second byte is 0x01 is taken for TLS, and its handshake fails;
// drivers' first message (hello) is shorter than 790 bytes in practice.
// In those modes, and in requireTLS, a connection must send its first
// bytes and finish its handshake within HandshakeTimeout.
type TLS struct {
	Mode tlsconf.Mode
	// Config answers handshakes; required unless Mode is Disabled.
	Config *tls.Config
	// HandshakeTimeout bounds the wait for the first bytes and the
	// handshake. Default 10 s (DefaultTLSHandshakeTimeout).
	HandshakeTimeout time.Duration
}

// TLS record and handshake bytes that mark a ClientHello.
const (
	tlsRecordHandshake = 0x16
	tlsMajorVersion    = 0x03
	tlsClientHello     = 0x01
)

// startTLS runs before the first message: it decides between TLS and
// plain and completes the handshake. False closes the connection (logged
// with the peer's address).
func (c *conn) startTLS() bool {
	t := c.srv.cfg.TLS
	if !t.Mode.Accepts() {
		return true
	}
	timeout := t.HandshakeTimeout
	if timeout <= 0 {
		timeout = DefaultTLSHandshakeTimeout
	}
	if err := c.nc.SetDeadline(time.Now().Add(timeout)); err != nil {
		return false
	}
	isTLS, err := c.helloIsTLS()
	if errors.Is(err, io.EOF) {
		return false // a port probe: connected and closed
	}
	if err != nil {
		c.srv.log.Info("closing connection: no TLS or wire message before the deadline", "conn", c.state.ID,
			"remote", c.state.Remote, "timeoutMillis", timeout.Milliseconds(), "err", err)
		return false
	}
	if !isTLS {
		if !t.Mode.AcceptsPlain() {
			c.srv.log.Warn("connection refused: TLS is required (net.tls.mode requireTLS) and the client sent plain text",
				"conn", c.state.ID, "remote", c.state.Remote)
			return false
		}
		return c.nc.SetDeadline(time.Time{}) == nil
	}
	tc := tls.Server(&bufferedConn{Conn: c.nc, r: c.r}, t.Config)
	if err := tc.Handshake(); err != nil {
		c.srv.log.Info("closing connection: TLS handshake failed", "conn", c.state.ID, "remote", c.state.Remote, "err", err)
		return false
	}
	if err := c.nc.SetDeadline(time.Time{}); err != nil {
		return false
	}
	c.rw, c.r = tc, bufio.NewReaderSize(tc, 16<<10)
	c.state.SetTLSPeer(tc.ConnectionState())
	return true
}

// helloIsTLS peeks at the connection's first bytes: a TLS ClientHello or
// not (see TLS).
func (c *conn) helloIsTLS() (bool, error) {
	b, err := c.r.Peek(1)
	if err != nil {
		return false, err
	}
	if b[0] != tlsRecordHandshake {
		return false, nil
	}
	if b, err = c.r.Peek(6); err != nil {
		return false, err
	}
	return b[1] == tlsMajorVersion && b[5] == tlsClientHello, nil
}

// bufferedConn reads what the detection peeked before reading the socket.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (b *bufferedConn) Read(p []byte) (int, error) {
	if b.r.Buffered() > 0 {
		return b.r.Read(p)
	}
	return b.Conn.Read(p)
}
