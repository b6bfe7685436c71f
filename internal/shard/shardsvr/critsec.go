package shardsvr

import (
	"context"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Critical sections (MongoDB's collection critical section, here for the
// router's DDL: shardCollection and drop of a sharded collection). While
// a router changes a namespace's metadata on the config servers, every
// shard involved holds the namespace's critical section:
//   - EnterCriticalSection blocks new versioned operations on the
//     namespace and returns once those already admitted have finished,
//     so none of them can apply a write under the old placement after
//     the metadata commits;
//   - ExitCriticalSection forgets the namespace's filtering metadata and
//     lets the blocked operations go on: their version check reloads the
//     new metadata, so a router with the old routing table gets StaleConfig
//     and retargets;
//   - a section not exited within its lease (the router died) ends by
//     itself, so a shard is never blocked for good.
// Only versioned operations (carrying shardVersion, as a router sends
// them) are counted and blocked; a client connected straight to a shard
// bypasses routing anyway, as with MongoDB.

// maxLease bounds a critical section's lease.
const maxLease = time.Minute

type critSections struct {
	mu   sync.Mutex
	byNS map[string]*nsGuard
}

// gen of nsGuard: see migsection.go.

// nsGuard is one namespace's versioned operations in flight and its
// critical section, if held.
type nsGuard struct {
	inflight int
	held     chan struct{} // non-nil while held; closed by exit
	drained  chan struct{} // while held: closed when inflight reaches 0
	lease    *time.Timer
	mig      *migSection // a migration's range section (migsection.go)
	gen      uint64      // bumped by each range section entered
}

func (cs *critSections) guard(ns string) *nsGuard {
	if cs.byNS == nil {
		cs.byNS = map[string]*nsGuard{}
	}
	g := cs.byNS[ns]
	if g == nil {
		g = &nsGuard{}
		cs.byNS[ns] = g
	}
	return g
}

// BeginVersioned admits a versioned operation on ns, waiting while its
// critical section is held (until ctx ends: ExceededTimeLimit). The
// operation must call release when it has finished.
func (s *State) BeginVersioned(ctx context.Context, ns string) (release func(), err error) {
	return s.BeginOp(ctx, ns, nil)
}

// BeginOp is BeginVersioned for the command cmd: while a migration's
// range section is held on ns, a write that may touch the range waits
// too (migsection.go); reads and writes elsewhere go on.
func (s *State) BeginOp(ctx context.Context, ns string, cmd bson.D) (release func(), err error) {
	cs := &s.crit
	for {
		cs.mu.Lock()
		g := cs.guard(ns)
		held := g.held
		if held == nil && g.mig != nil && g.mig.blocks(cmd) {
			held = g.mig.held
		}
		if held == nil {
			g.inflight++
			gen := g.admitLocked()
			cs.mu.Unlock()
			return func() { cs.finish(ns, g, gen) }, nil
		}
		cs.mu.Unlock()
		select {
		case <-held:
		case <-ctx.Done():
			return nil, mongoerr.New(mongoerr.ExceededTimeLimit, "timed out waiting for the critical section of %s", ns)
		}
	}
}

func (cs *critSections) finish(ns string, g *nsGuard, gen uint64) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	g.inflight--
	g.finishLocked(gen)
	if g.inflight == 0 && g.drained != nil {
		close(g.drained)
		g.drained = nil
	}
	if g.inflight == 0 && g.held == nil && g.mig == nil && cs.byNS[ns] == g {
		delete(cs.byNS, ns)
	}
}

// EnterCriticalSection takes ns's critical section for at most lease and
// waits until the versioned operations already admitted have finished.
// A section already held is ConflictingOperationInProgress; if ctx ends
// first the section is released again.
func (s *State) EnterCriticalSection(ctx context.Context, ns string, lease time.Duration) error {
	lease = min(max(lease, time.Second), maxLease)
	cs := &s.crit
	cs.mu.Lock()
	g := cs.guard(ns)
	if g.held != nil {
		cs.mu.Unlock()
		return mongoerr.New(mongoerr.ConflictingOperationInProgress, "the critical section of %s is already held", ns)
	}
	g.held = make(chan struct{})
	drained := make(chan struct{})
	if g.inflight == 0 {
		close(drained)
	} else {
		g.drained = drained
	}
	held := g.held
	g.lease = time.AfterFunc(lease, func() { s.exit(ns, held, "lease expired") })
	cs.mu.Unlock()
	select {
	case <-drained:
		s.opts.Logger.Info("critical section entered", "ns", ns, "lease", lease)
		return nil
	case <-ctx.Done():
		s.exit(ns, held, "not entered in time")
		return mongoerr.New(mongoerr.ExceededTimeLimit, "timed out waiting for the operations on %s to finish", ns)
	}
}

// ExitCriticalSection releases ns's critical section (a no-op when none
// is held) and forgets its filtering metadata.
func (s *State) ExitCriticalSection(ns string) {
	s.crit.mu.Lock()
	var held chan struct{}
	if g := s.crit.byNS[ns]; g != nil {
		held = g.held
	}
	s.crit.mu.Unlock()
	s.exit(ns, held, "exited")
}

// exit releases the section identified by held, if it is still the one
// held, and forgets ns's metadata.
func (s *State) exit(ns string, held chan struct{}, why string) {
	cs := &s.crit
	cs.mu.Lock()
	g := cs.byNS[ns]
	released := g != nil && held != nil && g.held == held
	if released {
		g.lease.Stop()
		close(g.held)
		g.held, g.drained, g.lease = nil, nil, nil
		if g.inflight == 0 && g.mig == nil {
			delete(cs.byNS, ns)
		}
	}
	cs.mu.Unlock()
	s.forget(ns)
	if released {
		s.opts.Logger.Info("critical section released", "ns", ns, "why", why)
	}
}

// forget drops ns's filtering metadata: the next check reloads it.
func (s *State) forget(ns string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.mu.colls[ns]; e != nil {
		e.meta = nil
	}
}
