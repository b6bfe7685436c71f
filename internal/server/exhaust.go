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
// A tailable awaitData cursor (a secondary tailing the oplog) streams for
// as long as it stays open: each getMore waits up to its maxTimeMS for new
// entries (an empty batch keeps the stream alive), so the loop never spins.
//
// Invariants: one batch at a time is held (bounded as any getMore's); the
// stream ends when the cursor ends, a getMore fails, the client goes away
// (a write fails), the server shuts down, or this member's replica-set
// topology changes (step-down, step-up, a new term or config: the last
// reply then goes without moreToCome and the cursor stays open, so the
// client may go on with a new getMore, checked afresh).
//
// TODO(#15): an oplog stream sends a batch as soon as one entry is
// visible; under many small w:"majority" writes a short linger (as
// MongoDB's oplog batcher) would send fewer, larger batches.

// exhaustible reports whether a request may be answered as an exhaust
// stream: a getMore.
func exhaustible(body bson.Raw) bool {
	e, err := body.IndexErr(0)
	return err == nil && e.Key() == "getMore"
}

// exhaust sends reply, and while the cursor stays open, the next batches.
func (c *conn) exhaust(hdr wire.Header, req *command.Request, reply []byte, compressor byte) bool {
	prev := hdr
	epoch, hasEpoch := c.topologyEpoch()
	for {
		now, _ := c.topologyEpoch()
		if !cursorOpen(reply) || c.srv.isClosed() || (hasEpoch && now != epoch) {
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

// topologyCounter is what a replica-set member's coordinator offers: its
// topologyVersion counter, which changes with its state, term and config.
type topologyCounter interface{ TopologyCounter() int64 }

// topologyEpoch is the member's topologyVersion counter; false on a
// standalone node or a router.
func (c *conn) topologyEpoch() (int64, bool) {
	h, ok := c.srv.cmds.(interface{ Replication() command.Replication })
	if !ok {
		return 0, false
	}
	tc, ok := h.Replication().(topologyCounter)
	if !ok {
		return 0, false
	}
	return tc.TopologyCounter(), true
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
