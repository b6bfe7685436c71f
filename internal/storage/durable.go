package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/cockroachdb/pebble"
)

// WaitDurable returns once commit seq is synced to the WAL. Concurrent
// waiters share one sync (group commit): the single syncer goroutine syncs
// everything committed so far and wakes them all.
func (e *Engine) WaitDurable(ctx context.Context, seq uint64) error {
	for {
		e.syncMu.Lock()
		done := e.syncDone
		e.syncMu.Unlock()
		if e.durable.Load() >= seq {
			return nil
		}
		e.requestSync()
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		case <-e.stop:
			return fmt.Errorf("storage: engine closed")
		}
	}
}

// SyncNow syncs every batch committed so far and returns after the sync.
func (e *Engine) SyncNow() error {
	return e.WaitDurable(context.Background(), e.committed.Load())
}

// RequestSync asks the syncer for a WAL sync now, without waiting for it.
func (e *Engine) RequestSync() { e.requestSync() }

// WaitBackgroundDurable returns once everything committed so far is synced
// by the background flusher (within CommitInterval), without forcing a sync.
func (e *Engine) WaitBackgroundDurable(ctx context.Context) error {
	seq := e.committed.Load()
	for {
		e.syncMu.Lock()
		done := e.syncDone
		e.syncMu.Unlock()
		if e.durable.Load() >= seq {
			return nil
		}
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		case <-e.stop:
			return fmt.Errorf("storage: engine closed")
		}
	}
}

func (e *Engine) requestSync() {
	select {
	case e.syncReq <- struct{}{}:
	default:
	}
}

// syncLoop is the single goroutine performing WAL syncs: on request and at
// least every CommitInterval when there are unsynced commits.
func (e *Engine) syncLoop() {
	defer e.wg.Done()
	t := time.NewTicker(e.opts.CommitInterval)
	defer t.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-e.syncReq:
		case <-t.C:
		}
		e.syncOnce()
	}
}

// syncOnce syncs the WAL if there are commits not known durable.
func (e *Engine) syncOnce() {
	target := e.committed.Load()
	if target > e.durable.Load() {
		if e.beforeSync != nil {
			e.beforeSync()
		}
		if err := e.db.LogData(nil, pebble.Sync); err != nil {
			Fatal(e.logger, "WAL sync failed", fmt.Errorf("storage: sync: %w", err))
			return
		}
		e.syncs.Add(1)
		e.advanceDurable(target)
	}
	e.syncMu.Lock()
	close(e.syncDone)
	e.syncDone = make(chan struct{})
	e.syncMu.Unlock()
}

// advanceDurable raises durable to at least seq.
func (e *Engine) advanceDurable(seq uint64) {
	for {
		cur := e.durable.Load()
		if cur >= seq || e.durable.CompareAndSwap(cur, seq) {
			return
		}
	}
}
