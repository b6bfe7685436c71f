package netclient

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/tlsconf"
	"github.com/relaydb/relaydb/internal/wire"
)

// maxReply bounds a reply's size (MongoDB's 48 MB message limit).
const maxReply = 48 * 1000 * 1000

var requestIDs atomic.Int32

// Conn is one connection to a member. It is not safe for concurrent use.
type Conn struct {
	host    string
	nc      net.Conn
	r       *bufio.Reader
	buf     []byte
	latency time.Duration
	broken  bool
	stream  exhaustState // exhaust.go
}

// dial connects to host and, with tlsCfg, completes a TLS handshake
// (verifying host's name unless tlsCfg skips it), both within timeout.
func dial(ctx context.Context, host string, timeout, latency time.Duration, tlsCfg *tls.Config) (*Conn, error) {
	d := net.Dialer{Timeout: timeout}
	nc, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return nil, fmt.Errorf("netclient: dial %s: %w", host, err)
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	if tlsCfg != nil {
		hctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		tc := tls.Client(nc, tlsconf.Dial(tlsCfg, host))
		if err := tc.HandshakeContext(hctx); err != nil {
			nc.Close()
			return nil, fmt.Errorf("netclient: TLS handshake with %s: %w", host, err)
		}
		nc = tc
	}
	return &Conn{host: host, nc: nc, r: bufio.NewReader(nc), latency: latency}, nil
}

// Host returns the address the connection was dialled to.
func (c *Conn) Host() string { return c.host }

// Close closes the connection.
func (c *Conn) Close() error { return c.nc.Close() }

// Run sends cmd to database db and returns the reply document. An ok:0
// reply is a *mongoerr.Error; a network error marks the connection broken.
func (c *Conn) Run(ctx context.Context, db string, cmd bson.D) (bson.D, error) {
	if c.broken || c.stream.open {
		return nil, fmt.Errorf("netclient: %s: connection is broken or streaming", c.host)
	}
	reply, err := c.roundTrip(ctx, db, cmd)
	if err != nil {
		c.broken = true
		return nil, err
	}
	return reply, ReplyError(reply)
}

func (c *Conn) roundTrip(ctx context.Context, db string, cmd bson.D) (bson.D, error) {
	if err := c.delay(ctx); err != nil {
		return nil, err
	}
	body := append(append(bson.D(nil), cmd...), bson.E{Key: "$db", Value: db})
	raw, err := bsonx.Encode(body)
	if err != nil {
		return nil, fmt.Errorf("netclient: encode %s: %w", cmdName(cmd), err)
	}
	dl, _ := ctx.Deadline()
	if err := c.nc.SetDeadline(dl); err != nil {
		return nil, fmt.Errorf("netclient: %s: set deadline: %w", c.host, err)
	}
	// Cancellation (not only the deadline) must interrupt a blocked send
	// or read: a peer behind a silent partition never answers, and the
	// caller (e.g. a sync source change) is waiting for us to return.
	stop := context.AfterFunc(ctx, func() { _ = c.nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	id := requestIDs.Add(1)
	c.buf = wire.AppendMsg(c.buf[:0], id, 0, 0, raw)
	if _, err := c.nc.Write(c.buf); err != nil {
		return nil, fmt.Errorf("netclient: %s: send %s: %w", c.host, cmdName(cmd), err)
	}
	return c.readReply(id, cmd)
}

func (c *Conn) readReply(id int32, cmd bson.D) (bson.D, error) {
	body, err := c.readRawReply(id)
	if err != nil {
		return nil, fmt.Errorf("%w (to %s)", err, cmdName(cmd))
	}
	doc, err := bsonx.Decode(body)
	if err != nil {
		return nil, fmt.Errorf("netclient: %s: decode reply to %s: %w", c.host, cmdName(cmd), err)
	}
	return doc, nil
}

// delay waits the simulated one-way latency, or until ctx ends.
func (c *Conn) delay(ctx context.Context) error {
	if c.latency <= 0 {
		return ctx.Err()
	}
	return c.sleep(ctx, c.latency)
}

// sleep waits d, or until ctx ends.
func (c *Conn) sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("netclient: %s: %w", c.host, ctx.Err())
	}
}

// ReplyError turns an ok:0 reply into a *mongoerr.Error.
func ReplyError(reply bson.D) error {
	if okValue(reply) {
		return nil
	}
	e := &mongoerr.Error{Code: mongoerr.UnknownError}
	for _, f := range reply {
		switch f.Key {
		case "code":
			if n, ok := bsonx.AsInt64(f.Value); ok {
				e.Code = mongoerr.Code(n)
			}
		case "errmsg":
			e.Msg, _ = f.Value.(string)
		case "errorLabels":
			arr, _ := f.Value.(bson.A)
			for _, l := range arr {
				if s, ok := l.(string); ok {
					e.Labels = append(e.Labels, s)
				}
			}
		}
	}
	return e
}

func okValue(reply bson.D) bool {
	v, found := bsonx.Get(reply, "ok")
	if !found {
		return false
	}
	if b, isBool := v.(bool); isBool {
		return b
	}
	n, _ := bsonx.AsFloat64(v)
	return n == 1
}

func cmdName(cmd bson.D) string {
	if len(cmd) == 0 {
		return "<empty>"
	}
	return cmd[0].Key
}
