// Package txn keeps the multi-document transactions of a data node's
// sessions: each session's newest transaction (its number and state) and
// the catalog transaction (catalog.Txn) holding its snapshot and writes.
// The commands that drive it live in internal/command/txn_*.go.
//
// Invariants:
//   - A session has at most one transaction here, its newest: starting a
//     newer one aborts an older one still in progress.
//   - A statement runs holding its transaction's lock (Lock/Unlock), so a
//     transaction runs one statement at a time; the reaper only aborts a
//     transaction it can lock.
//   - A transaction in progress longer than Lifetime() is aborted by the
//     reaper (MongoDB's transactionLifetimeLimitSeconds, default 60 s).
//   - Once committed or aborted, a transaction's catalog.Txn is released
//     (its document locks and snapshot go); its number and state stay so
//     that a retried commit or abort gets MongoDB's answer.
//   - Once this member is not primary, the transactions in progress are
//     aborted within a reaper interval (a step-down, as MongoDB aborts
//     them); their statements fail with NotWritablePrimary meanwhile.
//
// TODO(#14): no prepared transactions (two-phase commit over several
// shards).
package txn

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/session"
)

// State is a transaction's state.
type State int

// The states of a transaction.
const (
	InProgress State = iota + 1
	Committed
	Aborted
)

func (s State) String() string {
	switch s {
	case InProgress:
		return "TxnInProgress"
	case Committed:
		return "TxnCommitted"
	}
	return "TxnAborted"
}

var lifetimeSecs atomic.Int64

func init() { lifetimeSecs.Store(60) }

// Lifetime returns transactionLifetimeLimitSeconds.
func Lifetime() time.Duration { return time.Duration(lifetimeSecs.Load()) * time.Second }

// LifetimeSeconds returns transactionLifetimeLimitSeconds as set.
func LifetimeSeconds() int64 { return lifetimeSecs.Load() }

// SetLifetimeSeconds sets transactionLifetimeLimitSeconds (>= 1) and
// returns the old value.
func SetLifetimeSeconds(n int64) int64 { return lifetimeSecs.Swap(n) }

// Txn is one session's transaction.
type Txn struct {
	mu      sync.Mutex // held while a statement runs
	Number  int64
	state   atomic.Int32
	Cat     *catalog.Txn // nil once ended
	Started time.Time
	// Reason says why an aborted transaction was aborted (for errmsg).
	Reason string
}

// State returns the transaction's state.
func (t *Txn) State() State { return State(t.state.Load()) }

// Lock takes the transaction for a statement.
func (t *Txn) Lock() { t.mu.Lock() }

// Unlock gives it back.
func (t *Txn) Unlock() { t.mu.Unlock() }

// End marks the locked transaction committed or aborted and releases its
// catalog transaction. REQUIRES: the caller holds the lock.
func (t *Txn) End(s State, reason string) {
	if t.Cat != nil {
		t.Cat.Release()
		t.Cat = nil
	}
	if t.State() == InProgress {
		t.state.Store(int32(s))
		t.Reason = reason
	}
}

// Manager is a data node's set of session transactions.
type Manager struct {
	cat   *catalog.Catalog
	locks *catalog.TxnLocks
	mu    sync.Mutex
	txns  map[session.Key]*Txn
}

// NewManager returns a manager over cat.
func NewManager(cat *catalog.Catalog) *Manager {
	return &Manager{cat: cat, locks: catalog.NewTxnLocks(), txns: map[session.Key]*Txn{}}
}

// Get returns the session's newest transaction, or nil.
func (m *Manager) Get(k session.Key) *Txn {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.txns[k]
}

// Current reports whether t is still the session's newest transaction.
func (m *Manager) Current(k session.Key, t *Txn) bool { return m.Get(k) == t }

// Start makes a new transaction number n the session's (the caller has
// checked n is newer than the session's), aborting the previous one if it
// is still in progress; it returns the new transaction locked.
func (m *Manager) Start(k session.Key, n int64, majority bool) *Txn {
	t := &Txn{Number: n, Started: time.Now()}
	t.state.Store(int32(InProgress))
	t.Lock()
	m.mu.Lock()
	old := m.txns[k]
	m.txns[k] = t
	m.mu.Unlock()
	if old != nil {
		old.Lock()
		old.End(Aborted, "a newer transaction started")
		old.Unlock()
	}
	t.Cat = m.cat.BeginTxn(m.locks, majority)
	return t
}

// Forget drops a session's transaction (endSessions), aborting it; it
// returns the catalog transaction it aborted (nil if none), whose
// implicitly created collections the caller may drop on the primary
// (catalog.Txn.DropCreated).
func (m *Manager) Forget(k session.Key) *catalog.Txn {
	m.mu.Lock()
	t := m.txns[k]
	delete(m.txns, k)
	m.mu.Unlock()
	if t == nil {
		return nil
	}
	t.Lock()
	defer t.Unlock()
	cat := t.Cat
	if t.State() != InProgress {
		cat = nil
	}
	t.End(Aborted, "its session ended")
	return cat
}

// AbortAll aborts every transaction in progress (a step-down: MongoDB
// aborts unprepared transactions when a primary steps down).
func (m *Manager) AbortAll(reason string) {
	for _, t := range m.list() {
		t.Lock()
		t.End(Aborted, reason)
		t.Unlock()
	}
}

func (m *Manager) list() []*Txn {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*Txn, 0, len(m.txns))
	for _, t := range m.txns {
		out = append(out, t)
	}
	return out
}

// maxKept bounds the ended transactions kept (their numbers answer
// retried commits); beyond it the oldest ended ones are forgotten.
const maxKept = 100_000

// Reap aborts the transactions in progress for longer than Lifetime()
// that no statement holds, and forgets ended ones over maxKept; it
// returns how many it aborted.
func (m *Manager) Reap(now time.Time) int {
	return len(m.reap(now))
}

// reap is Reap, returning the catalog transactions it aborted.
func (m *Manager) reap(now time.Time) []*catalog.Txn {
	var aborted []*catalog.Txn
	limit := Lifetime()
	for _, t := range m.list() {
		if t.State() != InProgress || now.Sub(t.Started) < limit || !t.mu.TryLock() {
			continue
		}
		aborted = append(aborted, t.Cat)
		t.End(Aborted, "it exceeded transactionLifetimeLimitSeconds")
		t.Unlock()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, t := range m.txns {
		if len(m.txns) <= maxKept {
			break
		}
		if t.State() != InProgress {
			delete(m.txns, k)
		}
	}
	return aborted
}

// StepDown aborts the transactions in progress that no statement holds
// (this member is no longer primary, as MongoDB aborts them on a
// step-down); it returns how many it aborted.
func (m *Manager) StepDown() int {
	n := 0
	for _, t := range m.list() {
		if t.State() != InProgress || !t.mu.TryLock() {
			continue
		}
		t.End(Aborted, "the primary stepped down")
		t.Unlock()
		n++
	}
	return n
}

// Run reaps every interval until done closes (dropping, while primary,
// the collections a reaped transaction created: catalog.Txn.DropCreated),
// and aborts the transactions in progress whenever primary (nil: always)
// says this member is not primary.
func (m *Manager) Run(done <-chan struct{}, interval time.Duration, primary func() bool) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-done:
			m.AbortAll("shutdown")
			return
		case now := <-tick.C:
			if primary != nil && !primary() {
				m.StepDown()
			}
			for _, cat := range m.reap(now) {
				if cat != nil && (primary == nil || primary()) {
					_ = cat.DropCreated() // best effort: a failed drop leaves the empty collection
				}
			}
		}
	}
}
