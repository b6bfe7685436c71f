// Package bugs holds defects a test can switch on to prove the simulator
// (internal/sim) catches them: each guards a real code path with the
// mistake a developer could plausibly make there. They are all off unless
// a test turns one on; production code never does.
//
// Invariants:
//   - A switched-off bug costs one atomic load on a path that is not hot
//     (vote handling, the commit point, one applied insert, a rollback).
//   - Tests that turn one on must turn it off again (Set returns the
//     function that does) and must not run in parallel with others.
package bugs

import "sync/atomic"

// Bug is one injectable defect.
type Bug int

const (
	// CommitOverNonVoters counts non-voting members toward the majority
	// commit point (repl/topology).
	CommitOverNonVoters Bug = iota
	// DoubleVote grants a vote to a second candidate in a term the member
	// already voted in (repl/topology).
	DoubleVote
	// ApplierSkipsInsert leaves out the document of an applied insert
	// whose ts increment is a multiple of 7, keeping its oplog entry
	// (repl/applier).
	ApplierSkipsInsert
	// RollbackSkipsUndo truncates a diverged oplog without restoring the
	// documents its entries changed (repl/rollback).
	RollbackSkipsUndo
	count
)

var on [count]atomic.Bool

// On reports whether b is switched on.
func On(b Bug) bool { return on[b].Load() }

// Set switches b on and returns the function that switches it off.
func Set(b Bug) (reset func()) {
	on[b].Store(true)
	return func() { on[b].Store(false) }
}

func (b Bug) String() string {
	switch b {
	case CommitOverNonVoters:
		return "commit-over-non-voters"
	case DoubleVote:
		return "double-vote"
	case ApplierSkipsInsert:
		return "applier-skips-insert"
	case RollbackSkipsUndo:
		return "rollback-skips-undo"
	}
	return "unknown"
}
