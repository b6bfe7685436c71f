package netclient

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/wire"
)

// Exhaust streams (OP_MSG exhaustAllowed): StartExhaust sends a command
// (a getMore) allowing the server to answer with several replies, each
// with moreToCome set but the last; NextExhaust reads them in order.
//
// A simulated latency (Options.Latency, one way) delays the request as Run
// does, and each reply after the first by the same one-way delay from when
// it arrived, so streamed batches stay pipelined: a reply already buffered
// when the previous one was handed over counts as arriving with it.
//
// Invariants: while a stream is open (the last reply had moreToCome) the
// connection carries nothing else: Run fails until the stream ends. Each
// reply must answer the previous message (the request, then the previous
// reply's requestID). Any read error, ctx end or reply out of sequence
// marks the connection broken, since unread replies may follow on it.

// exhaustState is a Conn's open stream: the id the next reply must
// answer, and whether one is still due.
type exhaustState struct {
	prev    int32
	open    bool
	replies int       // read so far
	arrival time.Time // the last reply's (estimated) arrival
	body    bson.Raw  // the last reply's body (its own allocation)
}

// StartExhaust sends cmd to db with exhaustAllowed; read its replies with
// NextExhaust.
func (c *Conn) StartExhaust(ctx context.Context, db string, cmd bson.D) error {
	if c.broken || c.stream.open {
		return fmt.Errorf("netclient: %s: connection is broken or streaming", c.host)
	}
	if err := c.delay(ctx); err != nil {
		return err
	}
	body := append(append(bson.D(nil), cmd...), bson.E{Key: "$db", Value: db})
	raw, err := bsonx.Encode(body)
	if err != nil {
		return fmt.Errorf("netclient: encode %s: %w", cmdName(cmd), err)
	}
	if err := c.nc.SetWriteDeadline(deadline(ctx)); err != nil {
		c.broken = true
		return fmt.Errorf("netclient: %s: set deadline: %w", c.host, err)
	}
	id := requestIDs.Add(1)
	c.buf = wire.AppendMsg(c.buf[:0], id, 0, wire.ExhaustAllowed, raw)
	if _, err := c.nc.Write(c.buf); err != nil {
		c.broken = true
		return fmt.Errorf("netclient: %s: send %s: %w", c.host, cmdName(cmd), err)
	}
	c.stream = exhaustState{prev: id, open: true}
	return nil
}

// NextExhaust reads the stream's next reply; more reports whether another
// follows (moreToCome). An ok:0 reply is returned as a *mongoerr.Error,
// and ends the stream.
func (c *Conn) NextExhaust(ctx context.Context) (reply bson.D, more bool, err error) {
	if c.broken || !c.stream.open {
		return nil, false, fmt.Errorf("netclient: %s: no open exhaust stream", c.host)
	}
	reply, more, err = c.readExhaust(ctx)
	if err != nil {
		c.broken, c.stream.open = true, false
		return nil, false, err
	}
	c.stream.open = more
	if err := c.streamDelay(ctx); err != nil {
		c.broken, c.stream.open = true, false
		return nil, false, err
	}
	return reply, more, ReplyError(reply)
}

// streamDelay waits out the simulated one-way latency of the reply just
// read (none for the first, as Run's replies).
func (c *Conn) streamDelay(ctx context.Context) error {
	c.stream.replies++
	if c.latency <= 0 || c.stream.replies == 1 {
		return nil
	}
	return c.sleep(ctx, time.Until(c.stream.arrival.Add(c.latency)))
}

func (c *Conn) readExhaust(ctx context.Context) (bson.D, bool, error) {
	if err := c.nc.SetReadDeadline(deadline(ctx)); err != nil {
		return nil, false, fmt.Errorf("netclient: %s: set deadline: %w", c.host, err)
	}
	stop := context.AfterFunc(ctx, func() { _ = c.nc.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	buffered := c.r.Buffered() > 0
	h, body, err := wire.ReadMessage(c.r, maxReply)
	if err != nil {
		return nil, false, fmt.Errorf("netclient: %s: read exhaust reply: %w", c.host, err)
	}
	if !buffered || c.stream.arrival.IsZero() {
		c.stream.arrival = time.Now()
	}
	if h.ResponseTo != c.stream.prev {
		return nil, false, fmt.Errorf("netclient: %s: exhaust reply to %d, expected %d", c.host, h.ResponseTo, c.stream.prev)
	}
	c.stream.prev = h.RequestID
	m, err := parseReplyMsg(h, body)
	if err != nil {
		return nil, false, fmt.Errorf("netclient: %s: %w", c.host, err)
	}
	doc, err := bsonx.Decode(m.Body)
	if err != nil {
		return nil, false, fmt.Errorf("netclient: %s: decode exhaust reply: %w", c.host, err)
	}
	c.stream.body = m.Body
	return doc, m.Flags&wire.MoreToCome != 0, nil
}

// ExhaustBody returns the body of the reply NextExhaust last returned. It
// is the message's own allocation (never reused by later reads), so
// slices of it stay valid; it must not be modified.
func (c *Conn) ExhaustBody() bson.Raw { return c.stream.body }

// parseReplyMsg parses an OP_MSG reply, decompressing it first.
func parseReplyMsg(h wire.Header, body []byte) (*wire.Msg, error) {
	op := h.OpCode
	if op == wire.OpCompressed {
		var err error
		if op, body, err = wire.ParseCompressed(body, maxReply); err != nil {
			return nil, err
		}
	}
	if op != wire.OpMsg {
		return nil, fmt.Errorf("unexpected reply opcode %s", op)
	}
	return wire.ParseMsg(body)
}

// deadline is ctx's deadline, or none.
func deadline(ctx context.Context) time.Time {
	dl, _ := ctx.Deadline()
	return dl
}
