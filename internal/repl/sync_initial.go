package repl

import (
	"context"
	"log/slog"
	"time"

	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl/applier"
	"github.com/relaydb/relaydb/internal/repl/fetcher"
	"github.com/relaydb/relaydb/internal/repl/initialsync"
)

// maybeInitialSync runs an initial sync from conn when the member has no
// data, an unfinished initial sync, or is too stale. The coordinator is
// told (STARTUP2 until it finishes) and hears the applied position only
// once the data is consistent.
func (s *syncLoop) maybeInitialSync(ctx context.Context, conn fetcher.Source, log *slog.Logger) error {
	need, err := initialsync.Needed(s.o.Catalog)
	if err != nil || !(need || s.resync) {
		return err
	}
	sink, _ := s.p.(initialSyncSink)
	if sink != nil {
		sink.OnInitialSync(true)
	}
	log.Info("initial sync starting")
	res, err := initialsync.Run(ctx, s.o.Catalog, conn, initialsync.Options{
		Logger: log, BatchSize: s.o.CloneBatchSize, Fetcher: s.fetcher(ctx),
		Apply: func(_ context.Context, b []*oplog.Entry, o applier.BatchOptions) error {
			if _, err := applier.ApplyBatchWith(s.o.Catalog, b, log, o); err != nil {
				return err
			}
			s.o.Observe(b)
			return nil
		},
	})
	if err != nil {
		log.Warn("initial sync failed; it will start again", "err", err, "took", res.Took)
		return err
	}
	s.resync = false
	s.ap.Reset()
	log.Info("initial sync done", "begin", res.Begin, "stop", res.Stop, "applied", res.Applied,
		"databases", res.Databases, "collections", res.Collections, "documents", res.Documents,
		"indexesRebuilt", res.Rebuilt, "took", res.Took.Round(time.Millisecond))
	if sink != nil {
		sink.OnInitialSync(false)
	}
	s.p.OnApplied(res.Applied)
	s.kickDurable()
	return nil
}

// rollback handles a diverged oplog: the Rollback hook, or a log line
// (the loop retries; the coordinator may choose another source).
func (s *syncLoop) rollback(ctx context.Context, source string, log *slog.Logger, cause error) {
	if s.o.Rollback == nil {
		log.Error("oplog diverged from the sync source; no rollback configured", "err", cause)
		return
	}
	conn, err := s.o.Dial(ctx, source)
	if err != nil {
		log.Info("rollback: cannot reach the source", "err", err)
		return
	}
	defer conn.Close()
	// TODO(#4): ROLLBACK state and LocalRolledBack positions in the coordinator.
	resync, err := s.o.Rollback(ctx, conn)
	switch {
	case resync:
		log.Warn("rollback impossible; initial sync", "err", err)
		s.resync = true
	case err != nil:
		log.Error("rollback failed; retrying", "err", err)
	default:
		s.ap.Reset()
		log.Info("rollback done")
	}
}
