package netclient

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/wire"
)

// RunMsg sends one OP_MSG request as given, body (a complete command
// document naming its $db) and document sequences, to host over a pooled
// connection, and returns the reply's body document as the member sent
// it, not decoded: an ok:0 reply is not an error here. A router forwards
// requests this way without decoding and re-encoding them. Network
// errors discard the connection and are wrapped Go errors.
func (p *Pool) RunMsg(ctx context.Context, host string, body []byte, seqs []wire.Sequence) (bson.Raw, error) {
	c, err := p.checkout(ctx, host)
	if err != nil {
		return nil, err
	}
	reply, err := c.runMsg(ctx, body, seqs)
	if err != nil {
		c.broken = true
		_ = c.Close()
		return nil, err
	}
	p.checkin(c)
	return reply, nil
}

func (c *Conn) runMsg(ctx context.Context, body []byte, seqs []wire.Sequence) (bson.Raw, error) {
	if c.broken {
		return nil, fmt.Errorf("netclient: %s: connection is broken", c.host)
	}
	if err := c.delay(ctx); err != nil {
		return nil, err
	}
	dl, _ := ctx.Deadline()
	if err := c.nc.SetDeadline(dl); err != nil {
		return nil, fmt.Errorf("netclient: %s: set deadline: %w", c.host, err)
	}
	stop := context.AfterFunc(ctx, func() { _ = c.nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	id := requestIDs.Add(1)
	m := wire.Msg{Body: body, Sequences: seqs}
	c.buf = m.Append(c.buf[:0], id, 0)
	if _, err := c.nc.Write(c.buf); err != nil {
		return nil, fmt.Errorf("netclient: %s: send: %w", c.host, err)
	}
	if cap(c.buf) > 1<<20 {
		c.buf = nil // don't pin a large insert's buffer on an idle connection
	}
	return c.readRawReply(id)
}

// readRawReply reads the reply to request id and returns its body
// document (a fresh slice the caller owns).
func (c *Conn) readRawReply(id int32) (bson.Raw, error) {
	h, body, err := wire.ReadMessage(c.r, maxReply)
	if err != nil {
		return nil, fmt.Errorf("netclient: %s: read reply: %w", c.host, err)
	}
	if h.ResponseTo != id {
		return nil, fmt.Errorf("netclient: %s: reply to request %d, expected %d", c.host, h.ResponseTo, id)
	}
	op := h.OpCode
	if op == wire.OpCompressed {
		if op, body, err = wire.ParseCompressed(body, maxReply); err != nil {
			return nil, fmt.Errorf("netclient: %s: %w", c.host, err)
		}
	}
	if op != wire.OpMsg {
		return nil, fmt.Errorf("netclient: %s: unexpected reply opcode %s", c.host, op)
	}
	m, err := wire.ParseMsg(body)
	if err != nil {
		return nil, fmt.Errorf("netclient: %s: %w", c.host, err)
	}
	return m.Body, nil
}
