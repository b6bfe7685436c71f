package fetcher

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl/cursor"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

// tail is one tailable cursor on the source's oplog.
type tail struct {
	cursor.Reader
	f    *Fetcher
	last topology.OpTime // newest entry seen (the find's start before any)
	// stream is the source as a Streamer (nil: a getMore per batch);
	// streaming is true while its exhaust stream is open (stream.go).
	stream    Streamer
	streaming bool
}

func newTail(f *Fetcher, src Source, last topology.OpTime) *tail {
	t := &tail{Reader: cursor.Reader{Src: src, DB: cursor.OplogDB, Coll: cursor.OplogColl}, f: f, last: last}
	if s, ok := src.(Streamer); ok && !f.NoStream {
		t.stream = s
	}
	return t
}

// find opens the cursor at {ts: {$gte: last.TS}} and returns its first batch
// (unchecked: checkFirst judges it).
func (c *tail) find(ctx context.Context) ([]*oplog.Entry, error) {
	cmd := bson.D{{Key: "find", Value: cursor.OplogColl},
		{Key: "filter", Value: bson.D{{Key: "ts", Value: bson.D{{Key: "$gte", Value: c.last.TS}}}}},
		{Key: "tailable", Value: true}, {Key: "awaitData", Value: true},
		{Key: "batchSize", Value: c.f.BatchSize}}
	return c.run(ctx, "find", false, func(rctx context.Context) (bson.A, error) {
		return c.Find(rctx, cmd)
	})
}

// refind reopens a cursor the source closed, after the last entry seen.
func (c *tail) refind(ctx context.Context) ([]*oplog.Entry, error) {
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
func (c *tail) getMore(ctx context.Context) ([]*oplog.Entry, error) {
	opts := []bson.E{{Key: "batchSize", Value: c.f.BatchSize}, {Key: "maxTimeMS", Value: c.f.MaxAwait.Milliseconds()}}
	return c.run(ctx, "getMore", true, func(rctx context.Context) (bson.A, error) {
		if c.stream != nil {
			return c.streamBatch(rctx, c.stream, opts) // stream.go
		}
		return c.GetMore(rctx, opts...)
	})
}

// run sends a command through send, decodes the batch and checks that
// entries are strictly after last, except that a find's first entry may
// be last itself.
func (c *tail) run(ctx context.Context, name string, strict bool, send func(context.Context) (bson.A, error)) ([]*oplog.Entry, error) {
	rctx, cancel := context.WithTimeout(ctx, c.f.MaxAwait+c.f.NetSlack)
	defer cancel()
	docs, err := send(rctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("fetcher: %s: %w", name, err)
	}
	batch := make([]*oplog.Entry, 0, len(docs))
	prev := c.last.TS
	for i, v := range docs {
		e, err := cursor.Entry(v)
		if err != nil {
			return nil, fmt.Errorf("fetcher: %w", err)
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

// kill closes the source's cursor, best effort. An open stream cannot
// carry killCursors: closing the connection (the caller's) ends it.
func (c *tail) kill() {
	if c.streaming {
		c.ID = 0
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	c.Kill(ctx)
}

// oldestEntry returns the ts of the source's oldest oplog entry.
func oldestEntry(ctx context.Context, src Source) (bson.Timestamp, error) {
	e, err := cursor.OldestEntry(ctx, src)
	if err != nil {
		return bson.Timestamp{}, fmt.Errorf("fetcher: read the source's oldest entry: %w", err)
	}
	if e == nil {
		return bson.Timestamp{}, nil
	}
	return e.TS, nil
}
