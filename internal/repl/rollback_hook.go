package repl

import (
	"context"
	"errors"
	"log/slog"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/repl/cursor"
	"github.com/relaydb/relaydb/internal/repl/fetcher"
	"github.com/relaydb/relaydb/internal/repl/rollback"
)

// RollbackOptions configure RollbackHook.
type RollbackOptions struct {
	Catalog *catalog.Catalog
	Engine  *exec.Engine // the member's executor: its cursors and sessions
	DBPath  string       // rollback files go under DBPath/rollback
	Logger  *slog.Logger
	// Done, if set, runs after a successful rollback.
	Done func(rollback.Result)
}

// RollbackHook returns SyncOptions.Rollback: rollback.Run against the sync
// source; resync is true when only an initial sync can help. After a
// rollback it
//   - closes every cursor on the oplog: a member tailing ours must find
//     again and see that the entries it read are gone (the fetcher's
//     divergence check), or it would read our new entries after the
//     undone ones (MongoDB's fetcher watches its source's rollback id for
//     the same reason);
//   - rebuilds the retryable-write records: undone writes must not be
//     remembered as done.
func RollbackHook(o RollbackOptions) func(context.Context, fetcher.Source) (bool, error) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return func(ctx context.Context, src fetcher.Source) (bool, error) {
		res, err := rollback.Run(ctx, rollback.Options{Catalog: o.Catalog, Source: src, DBPath: o.DBPath, Logger: o.Logger})
		if errors.Is(err, rollback.ErrNoCommonPoint) || errors.Is(err, rollback.ErrUnrecoverable) {
			return true, err
		}
		if err == nil {
			o.Logger.Info("rollback finished", "commonPoint", res.CommonPoint, "undone", res.Undone, "files", len(res.Files))
			killed := o.Engine.Cursors().KillNS(cursor.OplogDB + "." + cursor.OplogColl)
			o.Logger.Info("oplog cursors closed after rollback", "cursors", killed)
			if rerr := o.Engine.RebuildSessions(); rerr != nil {
				o.Logger.Error("cannot rebuild retryable-write records after rollback", "err", rerr)
			}
			if o.Done != nil {
				o.Done(res)
			}
		}
		return false, err
	}
}
