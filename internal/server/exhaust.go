package server

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/wire"
)

// Exhaust cursors (OP_MSG exhaustAllowed): a getMore sent with
// exhaustAllowed is answered with moreToCome set, and the server goes on
// running the same getMore and sending each next batch, every reply
// answering the previous one's requestID, until the cursor is exhausted
// (id 0) or a getMore fails; the last reply has moreToCome clear. Drivers
// use it for find with cursorType EXHAUST.
//
// Invariants: one batch at a time is held (bounded as any getMore's); the
// stream ends when the cursor ends, a getMore fails, the client goes away
// (a write fails) or the server shuts down.

// exhaustible reports whether a request may be answered as an exhaust
// stream: a getMore.
func exhaustible(body bson.Raw) bool {
	e, err := body.IndexErr(0)
	return err == nil && e.Key() == "getMore"
}

// exhaust sends reply, and while the cursor stays open, the next batches.
func (c *conn) exhaust(hdr wire.Header, req *command.Request, reply []byte, compressor byte) bool {
	prev := hdr
	for {
		if !cursorOpen(reply) || c.srv.isClosed() {
			_, ok := c.sendFlags(prev, wire.OpMsg, reply, compressor, 0)
			return ok
		}
		id, ok := c.sendFlags(prev, wire.OpMsg, reply, compressor, wire.MoreToCome)
		if !ok {
			return false
		}
		prev = wire.Header{RequestID: id, OpCode: wire.OpMsg}
		next := &command.Request{Body: req.Body}
		reply = c.srv.cmds.Handle(c.state, next)
		if next.CloseConn {
			return false
		}
	}
}

// cursorOpen reports whether reply is a successful cursor batch whose
// cursor stays open (id not 0).
func cursorOpen(reply []byte) bool {
	raw := bson.Raw(reply)
	okv, err := raw.LookupErr("ok")
	if err != nil {
		return false
	}
	if f, isNum := okv.AsFloat64OK(); !isNum || f != 1 {
		return false
	}
	id, err := raw.LookupErr("cursor", "id")
	if err != nil {
		return false
	}
	n, isInt := id.AsInt64OK()
	return isInt && n != 0
}
