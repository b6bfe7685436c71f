// Package rollback undoes a former primary's oplog entries that its replica
// set never majority-committed, the refetch-based way of MongoDB's older
// rollback (rs_rollback.cpp): find the common point with the sync source,
// refetch every document the divergent entries touched, undo their DDL,
// save the undone documents as BSON files under the dbpath, and truncate
// the oplog back to the common point. The sync loop then fetches the
// source's entries after the common point as usual.
//
// Invariants:
//   - Nothing in the local data changes before the common point is found
//     and every divergent entry is judged undoable; an entry that cannot be
//     undone (ErrUnrecoverable: the drop or rename of a collection, or the
//     drop of an index, that existed at the common point) fails the
//     rollback before any write, as does a source whose oplog shares no
//     entry with ours (ErrNoCommonPoint). The one late ErrUnrecoverable is
//     a unique-index conflict while writing a refetched document; the
//     caller answers both errors with an initial sync, which wipes the data.
//   - Each document is written back without an oplog entry, document,
//     index entries and counters in one storage batch.
//   - The current version of every document touched is saved to
//     <dbpath>/rollback/<db>.<coll>/removed.<time>.bson before it is
//     replaced or deleted.
//   - minValid is raised to the source's newest entry seen while refetching,
//     so the node is not consistent (no primary, no majority reads) until
//     it has applied through it: a refetched document may be newer than the
//     common point.
//   - The oplog is truncated last; a crash before that reruns the rollback
//     (refetching is idempotent).
package rollback

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/repl/markers"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

// Source runs commands on the sync source; the same interface as
// fetcher.Source (a *netclient.Conn satisfies it).
type Source interface {
	Run(ctx context.Context, db string, cmd bson.D) (bson.D, error)
}

// Options configures Run.
type Options struct {
	Catalog *catalog.Catalog // the local node's catalog (required)
	Source  Source           // the sync source the fetcher saw diverge (required)
	DBPath  string           // rollback files go under DBPath/rollback (required)
	Logger  *slog.Logger     // default slog.Default()
}

// Result describes a finished rollback.
type Result struct {
	CommonPoint topology.OpTime // the newest entry both oplogs hold; ours is truncated to it
	Undone      int             // local oplog entries after the common point that were undone
	// Files are the rollback files written (absolute or DBPath-relative as
	// DBPath is).
	Files []string
}

var (
	// ErrNoCommonPoint: the oplogs share no entry (the source's oplog does
	// not reach back far enough, or the histories are unrelated): the node
	// needs an initial sync.
	ErrNoCommonPoint = errors.New("rollback: no common point with the sync source")
	// ErrUnrecoverable: a divergent entry cannot be undone by refetching
	// (see the package invariants); the node needs an initial sync.
	ErrUnrecoverable = errors.New("rollback: cannot undo a divergent oplog entry")
)

// Run rolls the local node back to its common point with opts.Source (see
// the package doc). The caller (the sync loop, in state ROLLBACK) must
// stop applying and fetching while it runs; afterwards it resumes
// fetching after Result.CommonPoint (the new oplog top). On
// ErrNoCommonPoint or ErrUnrecoverable the node needs an initial sync;
// other errors (the source failing) may be retried: refetching is
// idempotent and the oplog is truncated last.
func Run(ctx context.Context, opts Options) (Result, error) {
	if err := opts.check(); err != nil {
		return Result{}, err
	}
	r := &run{Options: opts, now: time.Now}
	return r.run(ctx)
}

func (o *Options) check() error {
	if o.Catalog == nil || o.Source == nil || o.DBPath == "" {
		return errors.New("rollback: Options need Catalog, Source and DBPath")
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return nil
}

// run is one rollback in progress.
type run struct {
	Options
	now   func() time.Time
	files []string
}

func (r *run) run(ctx context.Context) (Result, error) {
	common, divergent, err := findCommonPoint(ctx, r.Catalog.Oplog(), r.Source)
	if err != nil {
		return Result{}, err
	}
	r.Logger.Info("rollback: found the common point", "commonPoint", common.String(), "entriesToUndo", len(divergent))
	p, err := makePlan(divergent)
	if err != nil {
		return Result{}, err
	}
	fetched, err := r.refetchAll(ctx, p)
	if err != nil {
		return Result{}, err
	}
	if err := r.raiseMinValid(ctx); err != nil {
		return Result{}, err
	}
	if err := r.undo(p, fetched); err != nil {
		return Result{}, err
	}
	n, err := markers.TruncateOplogAfter(r.Catalog, common.TS)
	if err != nil {
		return Result{}, fmt.Errorf("rollback: %w", err)
	}
	r.Logger.Info("rollback: done", "commonPoint", common.String(), "undone", len(divergent),
		"truncated", n, "documents", len(p.docs), "files", r.files)
	return Result{CommonPoint: common, Undone: len(divergent), Files: r.files}, nil
}

// raiseMinValid sets minValid to the source's newest entry (read after
// refetching): refetched documents may reflect writes up to it, so the
// node is consistent only once it has applied that far.
func (r *run) raiseMinValid(ctx context.Context) error {
	top, err := sourceTop(ctx, r.Source)
	if err != nil {
		return err
	}
	m, err := markers.Read(r.Catalog)
	if err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	if !m.MinValid.Less(top) {
		return nil
	}
	if err := markers.SetMinValid(r.Catalog, top); err != nil {
		return fmt.Errorf("rollback: set minValid: %w", err)
	}
	r.Logger.Info("rollback: minValid set to the source's newest entry", "minValid", top.String())
	return nil
}
