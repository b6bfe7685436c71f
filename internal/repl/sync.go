package repl

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl/applier"
	"github.com/relaydb/relaydb/internal/repl/clock"
	"github.com/relaydb/relaydb/internal/repl/fetcher"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

// SourceConn is a dedicated connection to the sync source
// (*netclient.Conn).
type SourceConn interface {
	fetcher.Source
	Close() error
}

// SyncOptions configure the sync loop built by NewSyncLoop.
type SyncOptions struct {
	Catalog *catalog.Catalog
	Dial    func(ctx context.Context, host string) (SourceConn, error)
	// Observe, if set, sees every entry once it is applied, in order
	// (cmd/relaydb records the retryable writes entries carry).
	Observe func([]*oplog.Entry)
	// Rollback, if set, is called when this member's oplog diverged from
	// the source's; resync true means it cannot roll back and needs an
	// initial sync. Unset: the loop logs and retries.
	Rollback func(ctx context.Context, src fetcher.Source) (resync bool, err error)
	Logger   *slog.Logger
	// Retry is the pause before fetching again after the source failed;
	// 0 means 200 ms. The coordinator meanwhile may pick another source.
	Retry time.Duration
	// Fetcher tunes the fetch (nil: defaults); Clock times the applier's
	// delay and the retry pause (nil: the wall clock).
	Fetcher *fetcher.Fetcher
	Clock   applier.Clock
	// CloneBatchSize is initial sync's documents per batch (0: the source's).
	CloneBatchSize int32
}

// NewSyncLoop returns a Syncer factory for Options.NewSyncer: initial sync
// when the member needs one, then fetcher.Run from the source and the
// applier (secondaryDelaySecs from the member's config), reporting
// OnApplied and OnDurable.
func NewSyncLoop(o SyncOptions) func(Progress) Syncer {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Retry <= 0 {
		o.Retry = 200 * time.Millisecond
	}
	if o.Observe == nil {
		o.Observe = func([]*oplog.Entry) {}
	}
	if o.Clock == nil {
		o.Clock = clock.Real()
	}
	if o.Fetcher == nil {
		o.Fetcher = &fetcher.Fetcher{Logger: o.Logger}
	}
	return func(p Progress) Syncer { return &syncLoop{o: o, p: p} }
}

// Optional Progress methods (the Coordinator has them).
type (
	delayConfig     interface{ SecondaryDelay() time.Duration }
	initialSyncSink interface{ OnInitialSync(active bool) }
)

type syncLoop struct {
	o       SyncOptions
	p       Progress
	ap      *applier.Applier
	resync  bool // the source said we are too stale: initial sync
	durKick chan struct{}
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// Start fetches from source in the background. from is informational: the
// loop resumes from the local oplog's last entry each time.
func (s *syncLoop) Start(source string, _ topology.OpTime) {
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.ap = applier.New(s.o.Catalog, applier.Options{Logger: s.o.Logger, Clock: s.o.Clock,
		SecondaryDelay: s.delay()})
	s.durKick = make(chan struct{}, 1)
	s.wg.Add(2)
	go s.run(ctx, source)
	go s.durableLoop(ctx)
}

// Stop ends the loop and waits for the batch being applied.
func (s *syncLoop) Stop() {
	if s.cancel != nil {
		s.cancel()
	}
	s.wg.Wait()
}

// delay is the member's secondaryDelaySecs.
func (s *syncLoop) delay() time.Duration {
	if d, ok := s.p.(delayConfig); ok {
		return d.SecondaryDelay()
	}
	return 0
}

func (s *syncLoop) run(ctx context.Context, source string) {
	defer s.wg.Done()
	log := s.o.Logger.With("component", "sync", "source", source)
	for ctx.Err() == nil {
		err := s.fetchOnce(ctx, source, log)
		switch {
		case ctx.Err() != nil:
			return
		case errors.Is(err, fetcher.ErrOplogDiverged):
			s.rollback(ctx, source, log, err)
		case errors.Is(err, fetcher.ErrTooStale):
			log.Warn("too stale to sync from the source: initial sync", "err", err)
			s.resync = true
		default:
			log.Info("fetching stopped; retrying", "err", err)
		}
		if !sleep(ctx, s.o.Clock, s.o.Retry) {
			return
		}
	}
}

// sleep waits d on clk; false if ctx ended first.
func sleep(ctx context.Context, clk applier.Clock, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-clk.After(d):
		return true
	}
}

func (s *syncLoop) fetchOnce(ctx context.Context, source string, log *slog.Logger) error {
	conn, err := s.o.Dial(ctx, source)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := s.maybeInitialSync(ctx, conn, log); err != nil {
		return err
	}
	s.ap.Reset()
	s.ap.SetDelay(s.delay())
	return s.o.Fetcher.Run(ctx, conn, s.ap.Last(), func(batch []*oplog.Entry) error {
		return s.apply(ctx, batch)
	})
}

// apply applies a fetched batch, then observes and reports what applied.
func (s *syncLoop) apply(ctx context.Context, batch []*oplog.Entry) error {
	last, err := s.ap.Apply(ctx, batch)
	n := 0
	for n < len(batch) && !batch[n].TS.After(last.TS) {
		n++
	}
	if n > 0 {
		s.o.Observe(batch[:n])
		s.p.OnApplied(last)
		s.kickDurable()
	}
	return err
}

func (s *syncLoop) kickDurable() {
	select {
	case s.durKick <- struct{}{}:
	default:
	}
}

// durableLoop reports the applied entries once they are synced to the WAL.
func (s *syncLoop) durableLoop(ctx context.Context) {
	defer s.wg.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.durKick:
		}
		op, err := s.ap.Durable(ctx)
		if err != nil {
			if ctx.Err() == nil {
				s.o.Logger.Error("sync: wait durable", "err", err)
			}
			continue
		}
		if !op.IsZero() {
			s.p.OnDurable(op)
		}
	}
}
