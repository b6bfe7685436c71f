package exec

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/session"
)

// Engine executes operations on one data node's catalog.
type Engine struct {
	cat        *catalog.Catalog
	cursors    *Cursors
	locks      stripes
	sessions   *session.Table
	log        *slog.Logger
	now        func() time.Time
	tempDir    atomic.Pointer[string]      // aggregation spill directory (SetTempDir)
	keyGuard   KeyGuard                    // shard key check of updates (SetKeyGuard); nil off a shard
	validators validators                  // compiled collection validators (validate.go)
	procInfo   atomic.Pointer[ProcessInfo] // for $currentOp and $indexStats (SetProcessInfo)
	rebuild    rebuild                     // background session replay (rebuild.go)
}

// New returns an engine over cat.
func New(cat *catalog.Catalog, log *slog.Logger) *Engine {
	if log == nil {
		log = slog.Default()
	}
	e := &Engine{cat: cat, cursors: newCursors(), log: log, now: time.Now, sessions: session.NewTable()}
	e.startRebuild()
	return e
}

// Catalog returns the catalog the engine runs on.
func (e *Engine) Catalog() *catalog.Catalog { return e.cat }

// Cursors returns the open-cursor registry.
func (e *Engine) Cursors() *Cursors { return e.cursors }

// Close stops a background session replay and kills every cursor. The
// catalog is closed by its owner.
func (e *Engine) Close() {
	e.stopRebuild()
	e.cursors.killAll()
}

// WaitDurable blocks until the write identified by r is synced (j:true).
func (e *Engine) WaitDurable(ctx context.Context, r catalog.WriteResult) error {
	return e.cat.WaitDurable(ctx, r)
}
