// Package invariants holds what relaydb's commit-time invariant checks
// share: Enabled, a constant that is true only in builds with the
// invariants tag (go test -tags invariants ./internal/...), and Violated,
// which reports a broken invariant. As in pebble's internal/invariants, a
// check is written
//
//	if invariants.Enabled {
//		checkSomething(...)
//	}
//
// so that a normal build compiles it away: it costs nothing in production.
//
// The checks live next to the state they check (habit 5 of
// shared/docs/code-style.md):
//
//   - storage (batch_invariants.go), at every Engine.Commit: a batch that
//     writes a document of a replicated collection also writes an oplog
//     entry naming that document, and an index entry is written only with
//     its document;
//   - oplog (visibility_invariants.go), whenever a slot is retired: the
//     visibility point never passes a pending slot (no hole is ever
//     visible) and never moves backwards.
//
// Each check panics through Violated; the tests that prove they fire are
// the *_invariants_test.go files (//go:build invariants) in those packages.
package invariants

import "fmt"

// Violated panics with a message naming the broken invariant. It is called
// only from checks guarded by Enabled.
func Violated(format string, args ...any) {
	panic(Violation("invariant violated: " + fmt.Sprintf(format, args...)))
}

// Violation is the value Violated panics with, so a test can tell an
// invariant failure from any other panic.
type Violation string

func (v Violation) Error() string { return string(v) }
