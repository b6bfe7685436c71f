package command

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/exec"
)

func getMore(c *Ctx, p *request.GetMore) (bson.D, error) {
	n, err := firstBatchSize(p.BatchSize, 0)
	if err != nil {
		return nil, err
	}
	if err := c.checkCursorOwner(int64(p.CursorID)); err != nil {
		return nil, err
	}
	cur, err := c.D.eng.Cursors().Checkout(int64(p.CursorID), c.ns(p.Collection))
	if err != nil {
		return nil, err
	}
	defer c.D.eng.Cursors().Release(cur)
	if err := getMoreFailPoint(c, cur); err != nil { // changestream_cursor.go
		return nil, err
	}
	ctx, cancel := c.awaitContext(cur)
	defer cancel()
	cur.Interrupt = c.interrupted // killop.go
	batch, done, err := cur.NextBatch(ctx, n)
	if err == nil {
		if err = c.interrupted(); err != nil { // killed while awaiting data
			cur.Close()
		}
	}
	if err != nil {
		return nil, changeStreamError(err, cur) // changestream_cursor.go
	}
	id := int64(p.CursorID)
	if done {
		id = 0
	}
	return changeStreamFields(cursorReply(cur.NS, id, "nextBatch", batch), cur), nil // changestream_cursor.go
}

// awaitContext bounds an awaitData getMore by maxTimeMS (default 1 s).
func (c *Ctx) awaitContext(cur *exec.Cursor) (context.Context, context.CancelFunc) {
	wait := time.Second
	if ms, ok, _ := c.int64Field("maxTimeMS"); ok && ms > 0 {
		wait = time.Duration(ms) * time.Millisecond
	}
	// opContext descends from the dispatcher's shutdown context, so a
	// shutdown ends the wait too (no goroutine per getMore).
	return context.WithTimeout(c.opContext(), wait) // killop.go
}
