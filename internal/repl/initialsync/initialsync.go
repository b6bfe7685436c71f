// Package initialsync copies a replica-set member's data from a sync
// source, the way MongoDB's initial sync does (simplified): record the
// source's oplog top (the begin point), clone every database but local
// (collections with their UUIDs and options, indexes, documents), record
// the top again (the stop point), then fetch and apply the source's oplog
// from the begin point through at least the stop point.
//
// Invariants:
//   - The initial-sync flag (repl/markers) is set (synced) before any local
//     data is dropped or written and cleared only once the data is
//     consistent; a node that starts with it set runs initial sync again
//     from scratch (Needed reports it).
//   - Cloned documents and collections write no oplog entry. The local
//     oplog after initial sync starts at the begin point: the begin entry
//     and every later one are written by applier.ApplyBatch, so the member
//     can serve as a sync source.
//   - Documents cloned after the begin point may already hold the effects
//     of entries being applied: application is idempotent (inserts
//     upsert, updates/deletes of missing documents are skipped), and
//     until the stop point is applied every batch initial sync writes is
//     relaxed (catalog.Writer.RelaxUnique; applier.BatchOptions.Relaxed):
//     unique conflicts and updates that do not apply to a newer document
//     are tolerated, and the unique indexes involved, which initial sync
//     lists, are rebuilt at the end. minValid is set to the stop point
//     before applying.
//   - Run returns only once the data is consistent (nil error) or with
//     the flag still set (any error): the caller retries.
package initialsync

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl/applier"
	"github.com/relaydb/relaydb/internal/repl/fetcher"
	"github.com/relaydb/relaydb/internal/repl/markers"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

// Source runs commands on the sync source (a *netclient.Conn).
type Source interface {
	Run(ctx context.Context, db string, cmd bson.D) (bson.D, error)
}

// ErrSourceEmpty: the source has no oplog entry to start from.
var ErrSourceEmpty = errors.New("initialsync: the sync source's oplog is empty")

// Options configure Run.
type Options struct {
	Logger *slog.Logger
	// BatchSize is the number of documents per find/getMore batch of the
	// clone; 0 lets the source choose.
	BatchSize int32
	// Apply applies fetched oplog entries with the options it is given
	// (relaxed application); nil means applier.ApplyBatchWith. It must
	// write the entries to the local oplog as ApplyBatchWith does, and
	// pass it the options.
	Apply func(ctx context.Context, batch []*oplog.Entry, o applier.BatchOptions) error
	// Fetcher tunes the oplog fetch of the catch-up phase.
	Fetcher *fetcher.Fetcher
	// AfterClone, if set, is called between the clone and the stop point
	// (tests use it to write on the source at that moment).
	AfterClone func()
}

// Result describes a finished initial sync.
type Result struct {
	Begin, Stop topology.OpTime // the source's oplog top before and after the clone
	Applied     topology.OpTime // the last entry applied (>= Stop)
	Databases   int
	Collections int
	Documents   int64
	Rebuilt     int // indexes rebuilt after relaxed application
	Took        time.Duration
}

// Needed reports whether cat must run an initial sync before it can sync
// normally: its oplog is empty or an earlier initial sync did not finish.
func Needed(cat *catalog.Catalog) (bool, error) {
	if top, _ := cat.Oplog().Top(); top.IsZero() {
		return true, nil
	}
	return markers.InitialSyncFlag(cat)
}

// Run performs an initial sync of cat from src (see the package doc). It
// drops every replicated database cat holds first.
func Run(ctx context.Context, cat *catalog.Catalog, src Source, o Options) (Result, error) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Apply == nil {
		o.Apply = func(_ context.Context, b []*oplog.Entry, bo applier.BatchOptions) error {
			_, err := applier.ApplyBatchWith(cat, b, o.Logger, bo)
			return err
		}
	}
	if o.Fetcher == nil {
		o.Fetcher = &fetcher.Fetcher{Logger: o.Logger}
	}
	start := time.Now()
	res, err := run(ctx, cat, src, o)
	res.Took = time.Since(start)
	if err != nil {
		return res, fmt.Errorf("initialsync: %w", err)
	}
	return res, nil
}

func run(ctx context.Context, cat *catalog.Catalog, src Source, o Options) (Result, error) {
	var res Result
	begin, err := oplogTop(ctx, src)
	if err != nil || begin == nil {
		return res, errors.Join(err, emptyErr(begin))
	}
	res.Begin = begin.OpTime()
	if err := markers.SetInitialSyncFlag(cat, true); err != nil {
		return res, err
	}
	if err := resetForInitialSync(cat); err != nil {
		return res, err
	}
	rebuild := catalog.IndexSet{} // unique indexes relaxed batches left with conflicts
	o.Logger.Info("initial sync: cloning", "begin", res.Begin)
	cl := &cloner{cat: cat, src: src, batch: o.BatchSize, stats: &res, rebuild: rebuild}
	if err := cl.cloneAll(ctx); err != nil {
		return res, fmt.Errorf("clone: %w", err)
	}
	if o.AfterClone != nil {
		o.AfterClone()
	}
	stop, err := oplogTop(ctx, src)
	if err != nil || stop == nil {
		return res, errors.Join(err, emptyErr(stop))
	}
	res.Stop = stop.OpTime()
	o.Logger.Info("initial sync: cloned; applying the oplog", "stop", res.Stop,
		"databases", res.Databases, "collections", res.Collections, "documents", res.Documents)
	if err := markers.SetMinValid(cat, res.Stop); err != nil {
		return res, err
	}
	if res.Applied, err = catchUp(ctx, src, begin, res.Stop, o, applier.BatchOptions{Relaxed: rebuild}); err != nil {
		return res, fmt.Errorf("apply the oplog: %w", err)
	}
	return res, finish(cat, rebuild, &res)
}

func emptyErr(e *oplog.Entry) error {
	if e == nil {
		return ErrSourceEmpty
	}
	return nil
}

// finish rebuilds the indexes relaxed batches may have left wrong (the
// data is consistent: constraints are enforced from now on) and clears
// the flag.
func finish(cat *catalog.Catalog, rebuild catalog.IndexSet, res *Result) error {
	n, err := cat.RebuildIndexes(rebuild)
	res.Rebuilt = n
	if err != nil {
		return err
	}
	return markers.SetInitialSyncFlag(cat, false)
}

// errReached ends the fetch once the stop point is applied.
var errReached = errors.New("stop point reached")

// catchUp applies begin, then the source's entries after it, until the
// stop point is applied, with the options bo; it returns the last applied
// OpTime.
func catchUp(ctx context.Context, src Source, begin *oplog.Entry, stop topology.OpTime, o Options, bo applier.BatchOptions) (topology.OpTime, error) {
	last := begin.OpTime()
	if err := o.Apply(ctx, []*oplog.Entry{begin}, bo); err != nil {
		return last, err
	}
	if !last.Less(stop) {
		return last, nil
	}
	err := o.Fetcher.Run(ctx, src, last, func(batch []*oplog.Entry) error {
		if err := o.Apply(ctx, batch, bo); err != nil {
			return err
		}
		last = batch[len(batch)-1].OpTime()
		if !last.Less(stop) {
			return errReached
		}
		return nil
	})
	if errors.Is(err, errReached) {
		return last, nil
	}
	return last, err
}
