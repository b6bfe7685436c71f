package shardsvr

import (
	"context"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Database critical sections (MongoDB's database critical section, taken
// by movePrimary on the database's old primary shard). While one is held:
//   - no versioned operation on any collection of the database is
//     admitted (BeginVersioned waits), and those admitted before have
//     finished once EnterDBCriticalSection returns, so the unsharded
//     collections can be copied without a write landing behind the copy;
//   - its exit (or the end of its lease) first forgets the database's
//     cached config.databases entry and only then lets the held
//     operations go on: their database version check reloads the entry,
//     finds the new primary and answers StaleDbVersion, so the router
//     refreshes and resends them to the new primary.
// A section is identified by its reason (a document the caller chooses):
// entering again with the same reason while held renews the lease and
// reports alreadyHeld, which is how the caller proves, just before it
// commits, that the section was never lost; another reason is
// ConflictingOperationInProgress.
//
// Hooked in through WithRanges.BeginOp, which admits an operation on the
// database first and then on its namespace (critsec.go).

// dbSections are the database critical sections and the versioned
// operations in flight per database.
type dbSections struct {
	mu   sync.Mutex
	byDB map[string]*dbGuard
}

// dbGuard is one database's versioned operations in flight and its
// critical section, if held. Guarded by dbSections.mu.
type dbGuard struct {
	inflight int
	held     chan struct{} // non-nil while held; closed by exit
	drained  chan struct{} // while held: closed when inflight reaches 0
	lease    *time.Timer
	reason   string // while held
}

func (ds *dbSections) guardLocked(db string) *dbGuard {
	if ds.byDB == nil {
		ds.byDB = map[string]*dbGuard{}
	}
	g := ds.byDB[db]
	if g == nil {
		g = &dbGuard{}
		ds.byDB[db] = g
	}
	return g
}

func (ds *dbSections) finish(db string, g *dbGuard) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	g.inflight--
	if g.inflight == 0 && g.drained != nil {
		close(g.drained)
		g.drained = nil
	}
	if g.inflight == 0 && g.held == nil && ds.byDB[db] == g {
		delete(ds.byDB, db)
	}
}

// BeginOp admits a versioned operation on ns: first on its database
// (waiting out a database critical section), then as State.BeginOp.
func (w WithRanges) BeginOp(ctx context.Context, ns string, cmd bson.D) (release func(), err error) {
	releaseDB, err := w.admitDB(ctx, ns)
	if err != nil {
		return nil, err
	}
	releaseNS, err := w.State.BeginOp(ctx, ns, cmd)
	if err != nil {
		releaseDB()
		return nil, err
	}
	return func() { releaseNS(); releaseDB() }, nil
}

// dbOf returns the database of a namespace "db.coll".
func dbOf(ns string) string {
	db, _, _ := strings.Cut(ns, ".")
	return db
}

// admitDB admits a versioned operation on ns's database, waiting while
// its critical section is held. release must be called when it ends.
func (s *State) admitDB(ctx context.Context, ns string) (release func(), err error) {
	db := dbOf(ns)
	cs := &s.dbCrit
	for {
		cs.mu.Lock()
		g := cs.guardLocked(db)
		held := g.held
		if held == nil {
			g.inflight++
			cs.mu.Unlock()
			return func() { cs.finish(db, g) }, nil
		}
		cs.mu.Unlock()
		select {
		case <-held:
		case <-ctx.Done():
			return nil, mongoerr.New(mongoerr.ExceededTimeLimit, "timed out waiting for the critical section of database %s", db)
		}
	}
}

// EnterDBCriticalSection takes db's critical section for reason, for at
// most lease, and waits until the versioned operations already admitted
// on db have finished. Held with the same reason, it renews the lease
// and answers alreadyHeld.
func (s *State) EnterDBCriticalSection(ctx context.Context, db, reason string, lease time.Duration) (alreadyHeld bool, err error) {
	lease = min(max(lease, time.Second), maxLease)
	cs := &s.dbCrit
	cs.mu.Lock()
	g := cs.guardLocked(db)
	if g.held != nil {
		defer cs.mu.Unlock()
		if g.reason != reason {
			return false, mongoerr.New(mongoerr.ConflictingOperationInProgress,
				"the critical section of database %s is already held for %s", db, g.reason)
		}
		g.lease.Reset(lease)
		return true, nil
	}
	held, drained := make(chan struct{}), make(chan struct{})
	g.held = held
	if g.inflight == 0 {
		close(drained)
	} else {
		g.drained = drained
	}
	g.reason = reason
	g.lease = time.AfterFunc(lease, func() { s.exitDB(db, held, "lease expired") })
	cs.mu.Unlock()
	select {
	case <-drained:
		s.opts.Logger.Info("database critical section entered", "db", db, "reason", reason, "lease", lease)
		return false, nil
	case <-ctx.Done():
		s.exitDB(db, held, "not entered in time")
		return false, mongoerr.New(mongoerr.ExceededTimeLimit, "timed out waiting for the operations on database %s to finish", db)
	}
}

// ExitDBCriticalSection releases db's section when it is held for reason
// ("" releases whatever is held); otherwise it does nothing. Either way
// the database's cached entry is forgotten.
func (s *State) ExitDBCriticalSection(db, reason string) {
	s.dbCrit.mu.Lock()
	var held chan struct{}
	if g := s.dbCrit.byDB[db]; g != nil && (reason == "" || g.reason == reason) {
		held = g.held
	}
	s.dbCrit.mu.Unlock()
	s.exitDB(db, held, "exited")
}

// exitDB forgets db's entry and then releases the section identified by
// held, if it is still the one held: an operation let go re-reads the
// entry from the config servers.
func (s *State) exitDB(db string, held chan struct{}, why string) {
	s.forgetDB(db)
	cs := &s.dbCrit
	cs.mu.Lock()
	g := cs.byDB[db]
	released := g != nil && held != nil && g.held == held
	if released {
		g.lease.Stop()
		close(g.held)
		g.held, g.drained, g.lease, g.reason = nil, nil, nil, ""
		if g.inflight == 0 {
			delete(cs.byDB, db)
		}
	}
	cs.mu.Unlock()
	if released {
		s.opts.Logger.Info("database critical section released", "db", db, "why", why)
	}
}

// forgetDB drops db's cached config.databases entry: a load in flight
// completes into the dropped entry, so the next check reads the config
// servers again whatever that load returns.
func (s *State) forgetDB(db string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.mu.dbs, db)
}
