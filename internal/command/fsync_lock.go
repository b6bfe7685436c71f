package command

import (
	"context"
	"sync"
	"time"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// fsyncLock is the process's fsync lock (fsync {lock: true} takes it,
// fsyncUnlock releases it; the count nests as mongod's): while it is held,
// client write commands wait before they run; reads run.
//
// Invariants: a waiting write ends when the lock is released, at the
// command's maxTimeMS (MaxTimeMSExpired) or at shutdown; internal requests
// (replication, member-to-member) are not held, unlike mongod's global
// lock (TODO(#14): hold the applier and background writes too).
var fsyncLock = &fsyncGate{}

type fsyncGate struct {
	mu       sync.Mutex
	count    int64
	released chan struct{} // closed when count returns to 0; REQUIRES: mu
}

// lock takes one more lock and returns the count.
func (g *fsyncGate) lock() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.count == 0 {
		g.released = make(chan struct{})
	}
	g.count++
	return g.count
}

// unlock releases one lock; false when none was held.
func (g *fsyncGate) unlock() (int64, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.count == 0 {
		return 0, false
	}
	g.count--
	if g.count == 0 {
		close(g.released)
	}
	return g.count, true
}

// held returns the channel closed on release; nil when not locked.
func (g *fsyncGate) held() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.count == 0 {
		return nil
	}
	return g.released
}

// waitFsyncUnlock holds a client write command while the fsync lock is
// held.
func waitFsyncUnlock(ctx *Ctx) error {
	ch := fsyncLock.held()
	if ch == nil || internalRequest(ctx) || !writesData(ctx) {
		return nil
	}
	wait := context.Background()
	if ms, ok, _ := ctx.int64Field("maxTimeMS"); ok && ms > 0 {
		var cancel context.CancelFunc
		wait, cancel = context.WithTimeout(wait, time.Duration(ms)*time.Millisecond)
		defer cancel()
	}
	select {
	case <-ch:
		return nil
	case <-wait.Done():
		return mongoerr.New(mongoerr.MaxTimeMSExpired, "operation exceeded time limit")
	case <-ctx.D.shuttingDown():
		return mongoerr.New(mongoerr.InterruptedAtShutdown, "interrupted at shutdown")
	}
}

// writesData reports a command that writes: one the command table marks
// Write, or an aggregate with $out/$merge.
func writesData(ctx *Ctx) bool {
	c, ok := registry[ctx.Name]
	if !ok {
		return false
	}
	if c.Name == "aggregate" {
		return writesOutput(pipelineOf(ctx.Cmd))
	}
	return c.Write
}
