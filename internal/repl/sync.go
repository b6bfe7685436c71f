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
	"github.com/relaydb/relaydb/internal/repl/memnet"
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
	Clock   clock.Sleeper
	// CloneBatchSize is initial sync's documents per batch (0: the source's).
	CloneBatchSize int32
	// Stepped makes the loop run no goroutines of its own: a driver (the
	// simulator) calls its Step, and each round of fetching runs on a
	// memnet.Coroutine, so Dial's connections must park it (memnet's
	// Endpoint.Call) and Clock must be the driver's manual clock.
	Stepped bool
}

// Stepper is the Syncer of a stepped sync loop (SyncOptions.Stepped).
type Stepper interface {
	Syncer
	// Step gives the loop its turn: a new round once the last one ended
	// and the retry pause is over, or wakes a round that sleeps.
	Step()
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
	delayConfig      interface{ SecondaryDelay() time.Duration }
	initialSyncSink  interface{ OnInitialSync(active bool) }
	sourceBehindSink interface{ OnSourceBehind(host string) }
)

type syncLoop struct {
	o       SyncOptions
	p       Progress
	ap      *applier.Applier
	resync  bool // the source said we are too stale: initial sync
	durKick chan struct{}
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	// Stepped mode: the source, the running round and when the next may start.
	source string
	co     *memnet.Coroutine
	nextAt time.Time
}

// Start fetches from source in the background. from is informational: the
// loop resumes from the local oplog's last entry each time.
func (s *syncLoop) Start(source string, _ topology.OpTime) {
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.ap = applier.New(s.o.Catalog, applier.Options{Logger: s.o.Logger, Clock: s.o.Clock,
		SecondaryDelay: s.delay(), FreshInserts: true})
	s.durKick = make(chan struct{}, 1)
	if s.o.Stepped {
		s.source = source
		return
	}
	s.wg.Add(2)
	go s.run(ctx, source)
	go s.durableLoop(ctx)
}

// Stop ends the loop and waits for the batch being applied.
func (s *syncLoop) Stop() {
	if s.cancel != nil {
		s.cancel()
	}
	if s.co != nil {
		s.co.Stop()
	}
	s.wg.Wait()
}

// Step runs the stepped loop's turn (see Stepper).
func (s *syncLoop) Step() {
	now := s.o.Clock.Now()
	if s.co != nil && !s.co.Done() {
		s.co.Wake(now)
		return
	}
	if now.Before(s.nextAt) {
		return
	}
	log := s.o.Logger.With("component", "sync", "source", s.source)
	s.co = memnet.Go(func(ctx context.Context) {
		if !s.round(ctx, s.source, log) {
			s.nextAt = s.o.Clock.Now().Add(s.o.Retry)
		}
	})
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
	for s.round(ctx, source, log) {
		if !sleep(ctx, s.o.Clock, s.o.Retry) {
			return
		}
	}
}

// round fetches and applies from source until that stops, then handles
// why: a diverged oplog rolls back, a too stale one asks for an initial
// sync. It returns false once ctx ended.
func (s *syncLoop) round(ctx context.Context, source string, log *slog.Logger) bool {
	err := s.fetchOnce(ctx, source, log)
	switch {
	case ctx.Err() != nil:
		return false
	case errors.Is(err, fetcher.ErrOplogDiverged):
		s.rollback(ctx, source, log, err)
	case errors.Is(err, fetcher.ErrTooStale):
		log.Warn("too stale to sync from the source: initial sync", "err", err)
		s.resync = true
	case errors.Is(err, fetcher.ErrSourceBehind):
		log.Info("the sync source is behind us; choosing another", "err", err)
		if sink, ok := s.p.(sourceBehindSink); ok {
			sink.OnSourceBehind(source)
		}
	default:
		log.Info("fetching stopped; retrying", "err", err)
	}
	return ctx.Err() == nil
}

// sleep waits d on clk; false if ctx ended first.
func sleep(ctx context.Context, clk clock.Sleeper, d time.Duration) bool {
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
	return s.fetcher(ctx).Run(ctx, conn, s.ap.Last(), func(batch []*oplog.Entry) error {
		return s.apply(ctx, batch)
	})
}

// apply applies a fetched batch, then observes and reports what applied.
func (s *syncLoop) apply(ctx context.Context, batch []*oplog.Entry) error {
	if err := waitReplProducer(ctx, s.o.Clock); err != nil { // failpoint.go
		return err
	}
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

// fetcher is the Fetcher a round uses: in stepped mode its pauses park
// the round's coroutine on the driver's clock.
func (s *syncLoop) fetcher(ctx context.Context) *fetcher.Fetcher {
	if !s.o.Stepped {
		return s.o.Fetcher
	}
	f := *s.o.Fetcher
	f.Clock = coClock{ctx: ctx, clk: s.o.Clock}
	return &f
}

// coClock is a stepped round's clock: After parks its coroutine.
type coClock struct {
	ctx context.Context
	clk clock.Sleeper
}

func (c coClock) Now() time.Time { return c.clk.Now() }

func (c coClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	if memnet.Sleep(c.ctx, c.clk.Now(), d) == nil {
		ch <- c.clk.Now()
	}
	return ch
}

func (s *syncLoop) kickDurable() {
	if s.o.Stepped { // no durable goroutine: report at once
		s.reportDurable(context.Background())
		return
	}
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
		s.reportDurable(ctx)
	}
}

// reportDurable reports what is applied once it is synced to the WAL.
func (s *syncLoop) reportDurable(ctx context.Context) {
	op, err := s.ap.Durable(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.o.Logger.Error("sync: wait durable", "err", err)
		}
		return
	}
	if !op.IsZero() {
		s.p.OnDurable(op)
	}
}
