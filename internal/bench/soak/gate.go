package soak

import (
	"context"
	"sync"
)

// gate lets ops run while the server is up and holds them while it is
// killed, restarted and checked.
type gate struct {
	mu     sync.Mutex
	cond   *sync.Cond
	down   bool // REQUIRES: mu; a kill cycle is in progress
	active int  // REQUIRES: mu; ops between enter and exit
	epoch  int  // REQUIRES: mu; completed kill cycles
}

func newGate() *gate {
	g := &gate{}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// enter waits until the server is up (or ctx is done) and counts an op.
func (g *gate) enter(ctx context.Context) bool {
	stop := context.AfterFunc(ctx, func() { g.mu.Lock(); g.cond.Broadcast(); g.mu.Unlock() })
	defer stop()
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.down && ctx.Err() == nil {
		g.cond.Wait()
	}
	if ctx.Err() != nil {
		return false
	}
	g.active++
	return true
}

func (g *gate) exit() {
	g.mu.Lock()
	g.active--
	g.cond.Broadcast()
	g.mu.Unlock()
}

// killed reports whether a kill cycle is in progress: an op failing now
// was in flight at the kill.
func (g *gate) killed() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.down
}

// beginKill holds new ops; call before the kill signal.
func (g *gate) beginKill() {
	g.mu.Lock()
	g.down = true
	g.mu.Unlock()
}

// waitIdle waits until every op that entered has returned.
func (g *gate) waitIdle() {
	g.mu.Lock()
	for g.active > 0 {
		g.cond.Wait()
	}
	g.mu.Unlock()
}

// endKill lets ops run again.
func (g *gate) endKill() {
	g.mu.Lock()
	g.down = false
	g.epoch++
	g.cond.Broadcast()
	g.mu.Unlock()
}

// cycle is the number of completed kill cycles.
func (g *gate) cycle() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.epoch
}

// waitCycle waits until a kill cycle after e has completed (or ctx is done).
func (g *gate) waitCycle(ctx context.Context, e int) {
	stop := context.AfterFunc(ctx, func() { g.mu.Lock(); g.cond.Broadcast(); g.mu.Unlock() })
	defer stop()
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.epoch <= e && ctx.Err() == nil {
		g.cond.Wait()
	}
}
