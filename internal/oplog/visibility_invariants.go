package oplog

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/invariants"
)

// The visibility invariants of the package doc, checked in builds with the
// invariants tag (internal/invariants) each time a slot is retired:
//
//   - a slot is retired (committed or aborted) exactly once;
//   - Visible never moves backwards (TruncateAfter, which rolls the oplog
//     back, is the one exception: it resets the point on purpose, with no
//     slot in flight, and is checked for that instead);
//   - Visible never passes a pending slot: every slot still tracked (the
//     pending ones and those retired behind them) is newer than Visible,
//     in strictly increasing ts order, and the first of them is pending
//     (otherwise Visible should have advanced over it).

// checkRetireLocked checks a retire of a slot whose state was wasState,
// with the visibility point at before when it started. REQUIRES: l.mu.
func (l *Log) checkRetireLocked(s *Slot, wasState int8, before bson.Timestamp) {
	if wasState != 0 {
		invariants.Violated("oplog: slot %v retired twice (state was %d)", s.TS, wasState)
	}
	vis := l.mu.visible
	if vis.Before(before) {
		invariants.Violated("oplog: visibility point moved backwards from %v to %v", before, vis)
	}
	prev := vis
	for i, t := range l.mu.slots {
		if !t.TS.After(prev) {
			if t.state == 0 {
				invariants.Violated("oplog: visibility point %v passed pending slot %v: a hole is visible", vis, t.TS)
			}
			invariants.Violated("oplog: tracked slot %d at %v is not after %v", i, t.TS, prev)
		}
		prev = t.TS
	}
	if len(l.mu.slots) > 0 && l.mu.slots[0].state != 0 {
		invariants.Violated("oplog: slot %v is retired but the visibility point %v did not advance over it", l.mu.slots[0].TS, vis)
	}
}

// checkNoSlotsLocked checks that nothing is in flight when the visibility
// point is reset (TruncateAfter): a pending slot older than the new top
// would become a visible hole once it commits. REQUIRES: l.mu.
func (l *Log) checkNoSlotsLocked(op string) {
	if len(l.mu.slots) > 0 {
		invariants.Violated("oplog: %s with %d slot(s) in flight, first %v", op, len(l.mu.slots), l.mu.slots[0].TS)
	}
}
