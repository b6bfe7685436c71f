// Package fetcher tails a sync source's oplog (local.oplog.rs) the way a
// MongoDB secondary does: a tailable, awaitData find from the last entry
// the node has, then getMore in a loop, handing decoded batches on.
//
// Invariants:
//   - The first entry the source returns must be the one we already have
//     (same ts and term), unless we have nothing: otherwise the histories
//     diverged (ErrOplogDiverged: rollback) or the source no longer holds
//     it (ErrTooStale: initial sync). Nothing is emitted in either case.
//   - Emitted entries are strictly increasing in ts, each batch newer than
//     the last; the `after` entry itself is never emitted.
//   - Run returns only on ctx end, an emit error, or a source problem (a
//     command error, a network error, an out-of-order entry, the source
//     being behind us): the caller then picks a (new) source and calls Run
//     again from its last fetched entry.
//   - A source that implements Streamer is tailed by one exhaust getMore
//     stream instead of a getMore per batch; the invariants above hold on
//     it batch by batch, and a broken stream ends Run (stream.go).
package fetcher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl/clock"
	"github.com/relaydb/relaydb/internal/repl/cursor"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

// Source runs commands on the sync source; a *netclient.Conn satisfies it.
type Source interface {
	Run(ctx context.Context, db string, cmd bson.D) (bson.D, error)
}

var (
	// ErrOplogDiverged: the source does not hold our last entry although
	// its oplog reaches back past it; roll back to a common point.
	ErrOplogDiverged = errors.New("fetcher: our last oplog entry is not in the sync source's oplog")
	// ErrTooStale: the source's oldest entry is newer than our last one;
	// only an initial sync can catch up.
	ErrTooStale = errors.New("fetcher: sync source's oplog no longer holds our last entry (too stale)")
	// ErrSourceBehind: the source has nothing at or after our last entry;
	// choose another source.
	ErrSourceBehind = errors.New("fetcher: sync source is behind us")
)

// Defaults.
const (
	DefaultBatchSize = 1000
	DefaultMaxAwait  = 500 * time.Millisecond // the heartbeat interval
	DefaultNetSlack  = 5 * time.Second
	// DefaultBehindWait covers a sibling source a few batches behind.
	DefaultBehindWait = time.Second
)

// Fetcher holds the tuning of Run; the zero value uses the defaults.
type Fetcher struct {
	BatchSize int32         // entries per find/getMore batch
	MaxAwait  time.Duration // getMore maxTimeMS (awaitData wait)
	// NetSlack is added to MaxAwait to bound each command round trip, so a
	// hung source is noticed.
	NetSlack time.Duration
	// BehindWait is how long a source that has not yet reached our last
	// entry may take to get there before Run gives up on it.
	BehindWait time.Duration
	Logger     *slog.Logger
	// Clock times the pauses (behind-source polls, an idle source's dead
	// cursor); nil means the wall clock.
	Clock clock.Sleeper
	// NoStream tails with a getMore per batch even when the source is a
	// Streamer (stream.go).
	NoStream bool
}

// Run tails src from after with the default tuning (see Fetcher.Run).
func Run(ctx context.Context, src Source, after topology.OpTime, emit func([]*oplog.Entry) error) error {
	return (&Fetcher{}).Run(ctx, src, after, emit)
}

// Run tails src's oplog starting at after (the last entry we have; zero =
// from the beginning), calling emit with each non-empty batch in order.
func (f *Fetcher) Run(ctx context.Context, src Source, after topology.OpTime, emit func([]*oplog.Entry) error) error {
	f.defaults()
	cur := newTail(f, src, after)
	defer cur.kill()
	batch, err := f.start(ctx, cur, src, after)
	if err != nil {
		return err
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(batch) > 0 {
			if err := emit(batch); err != nil {
				return err
			}
		}
		if cur.ID == 0 { // the source closed the cursor: find again
			if err := f.pause(ctx); err != nil {
				return err
			}
			if batch, err = cur.refind(ctx); err != nil {
				return err
			}
			continue
		}
		if batch, err = cur.getMore(ctx); err != nil {
			return err
		}
	}
}

// start runs the first find and checks it. A source a hair behind us (a
// sibling fed by the same primary, chosen from heartbeat positions) is
// asked again every behindPoll for up to BehindWait before ErrSourceBehind.
func (f *Fetcher) start(ctx context.Context, cur *tail, src Source, after topology.OpTime) ([]*oplog.Entry, error) {
	deadline := f.Clock.Now().Add(f.BehindWait)
	for {
		first, err := cur.find(ctx)
		if err != nil {
			return nil, err
		}
		first, err = f.checkFirst(ctx, src, after, first)
		if !errors.Is(err, ErrSourceBehind) || f.Clock.Now().After(deadline) {
			return first, err
		}
		cur.kill()
		select {
		case <-f.Clock.After(behindPoll):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

const behindPoll = 10 * time.Millisecond

func (f *Fetcher) defaults() {
	if f.BatchSize <= 0 {
		f.BatchSize = DefaultBatchSize
	}
	if f.MaxAwait <= 0 {
		f.MaxAwait = DefaultMaxAwait
	}
	if f.NetSlack <= 0 {
		f.NetSlack = DefaultNetSlack
	}
	if f.BehindWait <= 0 {
		f.BehindWait = DefaultBehindWait
	}
	if f.Logger == nil {
		f.Logger = slog.Default()
	}
	if f.Clock == nil {
		f.Clock = clock.Real()
	}
}

// pause waits MaxAwait (a dead cursor on an idle source) or until ctx ends.
func (f *Fetcher) pause(ctx context.Context) error {
	select {
	case <-f.Clock.After(f.MaxAwait):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// nothingAfter judges a source with no entry at or after our last one's
// ts: behind us, unless its newest entry is newer than ours by OpTime (a
// later term with smaller timestamps: a primary elected without our last
// entries), in which case our entry is not in its history and we must roll
// back (MongoDB's fetcher compares the source's last applied OpTime the
// same way).
func (f *Fetcher) nothingAfter(ctx context.Context, src Source, after topology.OpTime) error {
	newest, err := cursor.NewestEntry(ctx, src)
	if err != nil {
		return fmt.Errorf("fetcher: read the source's newest entry: %w", err)
	}
	if newest != nil && after.Less(newest.OpTime()) {
		return fmt.Errorf("%w: we have %v, the source's newest entry is %v (a later term)",
			ErrOplogDiverged, after, newest.OpTime())
	}
	return fmt.Errorf("%w: no entry at or after %v", ErrSourceBehind, after)
}

// checkFirst verifies the first batch starts with after and drops it.
func (f *Fetcher) checkFirst(ctx context.Context, src Source, after topology.OpTime, batch []*oplog.Entry) ([]*oplog.Entry, error) {
	if after.IsZero() {
		return batch, nil
	}
	if len(batch) == 0 {
		return nil, f.nothingAfter(ctx, src, after)
	}
	got := topology.OpTime{TS: batch[0].TS, Term: batch[0].Term}
	if got == after {
		return batch[1:], nil
	}
	if got.TS == after.TS {
		return nil, fmt.Errorf("%w: the source has %v where we have %v", ErrOplogDiverged, got, after)
	}
	oldest, err := oldestEntry(ctx, src)
	if err != nil {
		return nil, err
	}
	if oldest.After(after.TS) {
		return nil, fmt.Errorf("%w: our last entry %v, the source's oldest %v", ErrTooStale, after, oldest)
	}
	return nil, fmt.Errorf("%w: we have %v, the source's next entry is %v", ErrOplogDiverged, after, got)
}
