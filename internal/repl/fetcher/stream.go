package fetcher

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/repl/cursor"
)

// Streamer is a Source that can also stream a getMore's batches (OP_MSG
// exhaustAllowed / moreToCome, as MongoDB 4.4+ fetchers do): the source
// sends each batch as entries commit, without a request per batch. A
// *netclient.Conn implements it; a Source without it (the simulator's
// memnet connections) is tailed with one getMore per batch.
//
// Invariants of the stream: the checks of every batch are those of the
// getMore path (strictly increasing, after the last entry fetched); a
// stream that ends cleanly with its cursor open (the source ended it, e.g.
// on a topology change) is resumed with a new exhaust getMore; a broken
// stream (network error, bad reply) ends Run, and the caller restarts
// from its last fetched entry on a new connection.
type Streamer interface {
	Source
	// StartExhaust sends cmd with exhaustAllowed.
	StartExhaust(ctx context.Context, db string, cmd bson.D) error
	// NextExhaust returns the next reply; more is false on the last one.
	NextExhaust(ctx context.Context) (reply bson.D, more bool, err error)
}

// streamBatch is getMore on a Streamer: it opens the stream when none is
// open and returns its next batch, setting the cursor id from the reply.
func (c *tail) streamBatch(ctx context.Context, s Streamer, opts []bson.E) (bson.A, error) {
	if !c.streaming {
		cmd := append(bson.D{{Key: "getMore", Value: c.ID}, {Key: "collection", Value: c.Coll}}, opts...)
		if err := s.StartExhaust(ctx, c.DB, cmd); err != nil {
			return nil, err
		}
		c.streaming = true
	}
	reply, more, err := s.NextExhaust(ctx)
	c.streaming = more
	if err != nil {
		c.ID = 0 // an error ends the stream; the source closed the cursor or the link broke
		return nil, err
	}
	id, docs, err := cursor.Reply(reply, "nextBatch")
	if err != nil {
		return nil, err
	}
	c.ID = id
	if rb, ok := s.(rawBodier); ok {
		docs = cursor.WithRaw(docs, rb.ExhaustBody(), "nextBatch") // stored as received
	}
	return docs, nil
}

// rawBodier is a Streamer that keeps the bytes of the reply NextExhaust
// last returned (a *netclient.Conn); they must not be modified.
type rawBodier interface{ ExhaustBody() bson.Raw }
