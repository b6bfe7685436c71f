package repl

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/oplog"
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
	// Apply applies a fetched batch (entries and effects, idempotently);
	// nil means Catalog.ApplyBatch.
	Apply  func([]*oplog.Entry) error
	Logger *slog.Logger
	// Retry is the pause before fetching again after the source failed;
	// 0 means 200 ms. The coordinator meanwhile may pick another source.
	Retry time.Duration
}

// NewSyncLoop returns a Syncer factory for Options.NewSyncer: fetcher.Run
// from the source, apply, report OnApplied.
func NewSyncLoop(o SyncOptions) func(Progress) Syncer {
	if o.Apply == nil {
		o.Apply = o.Catalog.ApplyBatch
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Retry <= 0 {
		o.Retry = 200 * time.Millisecond
	}
	return func(p Progress) Syncer { return &syncLoop{o: o, p: p} }
}

type syncLoop struct {
	o      SyncOptions
	p      Progress
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Start fetches from source in the background. from is informational: the
// loop resumes from the local oplog's last entry each time.
func (s *syncLoop) Start(source string, _ topology.OpTime) {
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.wg.Add(1)
	go s.run(ctx, source)
}

// Stop ends the loop and waits for the batch being applied.
func (s *syncLoop) Stop() {
	if s.cancel != nil {
		s.cancel()
	}
	s.wg.Wait()
}

func (s *syncLoop) run(ctx context.Context, source string) {
	defer s.wg.Done()
	log := s.o.Logger.With("component", "sync", "source", source)
	for ctx.Err() == nil {
		err := s.fetchOnce(ctx, source)
		switch {
		case ctx.Err() != nil:
			return
		case errors.Is(err, fetcher.ErrOplogDiverged):
			// TODO(#4): rollback to the common point.
			log.Error("oplog diverged from the sync source; rollback is not implemented yet", "err", err)
		case errors.Is(err, fetcher.ErrTooStale):
			// TODO(#4): initial sync.
			log.Error("too stale to sync from the source; initial sync is not implemented yet", "err", err)
		default:
			log.Info("fetching stopped; retrying", "err", err)
		}
		t := time.NewTimer(s.o.Retry)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

func (s *syncLoop) fetchOnce(ctx context.Context, source string) error {
	conn, err := s.o.Dial(ctx, source)
	if err != nil {
		return err
	}
	defer conn.Close()
	from, err := lastApplied(s.o.Catalog)
	if err != nil {
		return err
	}
	return fetcher.Run(ctx, conn, from, func(batch []*oplog.Entry) error {
		if err := s.o.Apply(batch); err != nil {
			return err
		}
		last := batch[len(batch)-1]
		s.p.OnApplied(topology.OpTime{TS: last.TS, Term: last.Term})
		return nil
	})
}
