package fetcher

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

const (
	oplogDB   = "local"
	oplogColl = "oplog.rs"
)

// cursor is one tailable cursor on the source's oplog.
type cursor struct {
	f    *Fetcher
	src  Source
	id   int64
	last topology.OpTime // newest entry seen (the find's start before any)
}

// find opens the cursor at {ts: {$gte: last.TS}} and returns its first batch
// (unchecked: checkFirst judges it).
func (c *cursor) find(ctx context.Context) ([]*oplog.Entry, error) {
	cmd := bson.D{{Key: "find", Value: oplogColl},
		{Key: "filter", Value: bson.D{{Key: "ts", Value: bson.D{{Key: "$gte", Value: c.last.TS}}}}},
		{Key: "tailable", Value: true}, {Key: "awaitData", Value: true},
		{Key: "batchSize", Value: c.f.BatchSize}}
	return c.run(ctx, cmd, "firstBatch", false)
}

// refind reopens a cursor the source closed, after the last entry seen.
func (c *cursor) refind(ctx context.Context) ([]*oplog.Entry, error) {
	want := c.last
	batch, err := c.find(ctx)
	if err != nil {
		return nil, err
	}
	if want.IsZero() {
		return batch, nil
	}
	if len(batch) == 0 || (topology.OpTime{TS: batch[0].TS, Term: batch[0].Term}) != want {
		return nil, fmt.Errorf("%w: %v is gone from the source after its cursor closed", ErrOplogDiverged, want)
	}
	return batch[1:], nil
}

// getMore fetches the next batch, waiting up to MaxAwait for new entries.
func (c *cursor) getMore(ctx context.Context) ([]*oplog.Entry, error) {
	cmd := bson.D{{Key: "getMore", Value: c.id}, {Key: "collection", Value: oplogColl},
		{Key: "batchSize", Value: c.f.BatchSize},
		{Key: "maxTimeMS", Value: c.f.MaxAwait.Milliseconds()}}
	return c.run(ctx, cmd, "nextBatch", true)
}

// run sends cmd, decodes the batch and checks that entries are strictly
// after last, except that a find's first entry may be last itself.
func (c *cursor) run(ctx context.Context, cmd bson.D, field string, strict bool) ([]*oplog.Entry, error) {
	rctx, cancel := context.WithTimeout(ctx, c.f.MaxAwait+c.f.NetSlack)
	defer cancel()
	reply, err := c.src.Run(rctx, oplogDB, cmd)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("fetcher: %s: %w", cmd[0].Key, err)
	}
	id, docs, err := cursorReply(reply, field)
	if err != nil {
		return nil, err
	}
	c.id = id
	batch := make([]*oplog.Entry, 0, len(docs))
	prev := c.last.TS
	for i, v := range docs {
		e, err := decodeEntry(v)
		if err != nil {
			return nil, err
		}
		if !e.TS.After(prev) && !(i == 0 && !strict && e.TS == prev) {
			return nil, fmt.Errorf("fetcher: source returned %v after %v (out of order)", e.TS, prev)
		}
		prev = e.TS
		batch = append(batch, e)
	}
	if n := len(batch); n > 0 {
		c.last = topology.OpTime{TS: batch[n-1].TS, Term: batch[n-1].Term}
	}
	return batch, nil
}

func decodeEntry(v any) (*oplog.Entry, error) {
	doc, ok := v.(bson.D)
	if !ok {
		return nil, fmt.Errorf("fetcher: oplog entry is a %T", v)
	}
	e, err := oplog.FromDoc(doc)
	if err != nil {
		return nil, fmt.Errorf("fetcher: %w", err)
	}
	return e, nil
}

// cursorReply extracts cursor.id and cursor.<field>.
func cursorReply(reply bson.D, field string) (int64, bson.A, error) {
	var cur bson.D
	for _, e := range reply {
		if e.Key == "cursor" {
			cur, _ = e.Value.(bson.D)
		}
	}
	if cur == nil {
		return 0, nil, fmt.Errorf("fetcher: reply has no cursor: %v", reply)
	}
	var id int64
	var docs bson.A
	for _, e := range cur {
		switch e.Key {
		case "id":
			id, _ = e.Value.(int64)
		case field:
			docs, _ = e.Value.(bson.A)
		}
	}
	return id, docs, nil
}

// kill closes the source's cursor, best effort.
func (c *cursor) kill() {
	if c.id == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, _ = c.src.Run(ctx, oplogDB, bson.D{{Key: "killCursors", Value: oplogColl},
		{Key: "cursors", Value: bson.A{c.id}}})
}

// oldestEntry returns the ts of the source's oldest oplog entry.
func oldestEntry(ctx context.Context, src Source) (bson.Timestamp, error) {
	reply, err := src.Run(ctx, oplogDB, bson.D{{Key: "find", Value: oplogColl},
		{Key: "limit", Value: int64(1)}, {Key: "singleBatch", Value: true}})
	if err != nil {
		return bson.Timestamp{}, fmt.Errorf("fetcher: read the source's oldest entry: %w", err)
	}
	_, docs, err := cursorReply(reply, "firstBatch")
	if err != nil || len(docs) == 0 {
		return bson.Timestamp{}, err
	}
	e, err := decodeEntry(docs[0])
	if err != nil {
		return bson.Timestamp{}, err
	}
	return e.TS, nil
}
