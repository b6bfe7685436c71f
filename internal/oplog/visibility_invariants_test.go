//go:build invariants

package oplog

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/invariants"
)

// Each test breaks one visibility invariant on purpose and expects the
// check (visibility_invariants.go) to panic with a message naming it.

func expectViolation(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		v, ok := r.(invariants.Violation)
		if !ok {
			t.Fatalf("recovered %v (%T), want an invariant violation %q", r, r, want)
		}
		if !strings.Contains(v.Error(), want) {
			t.Fatalf("violation %q, want it to mention %q", v.Error(), want)
		}
	}()
	f()
}

// A log whose slots are not kept in allocation order (the bug the
// invariant guards against once commits are concurrent) would let the
// visibility point jump over a pending slot.
func TestInvariantVisibilityHole(t *testing.T) {
	f := newFixture(t, nil, 0)
	defer f.eng.Close()
	s1, _ := f.reserveAppend(t, bson.D{{Key: "n", Value: 1}})
	s2, _ := f.reserveAppend(t, bson.D{{Key: "n", Value: 2}})
	f.log.mu.Lock()
	f.log.mu.slots[0], f.log.mu.slots[1] = s2, s1
	f.log.mu.Unlock()
	expectViolation(t, "passed pending slot", func() { f.log.Commit(s2) })
}

func TestInvariantVisibilityBackwards(t *testing.T) {
	f := newFixture(t, nil, 0)
	defer f.eng.Close()
	s, _ := f.reserveAppend(t, bson.D{{Key: "n", Value: 1}})
	f.log.mu.Lock()
	f.log.mu.visible = bson.Timestamp{T: s.TS.T + 100} // a corrupt point ahead of the slot
	f.log.mu.Unlock()
	expectViolation(t, "moved backwards", func() { f.log.Commit(s) })
}

func TestInvariantSlotRetiredTwice(t *testing.T) {
	f := newFixture(t, nil, 0)
	defer f.eng.Close()
	s, b := f.reserveAppend(t, bson.D{{Key: "n", Value: 1}})
	if _, err := f.eng.Commit(b, false); err != nil {
		t.Fatal(err)
	}
	f.log.Commit(s)
	expectViolation(t, "retired twice", func() { f.log.Abort(s) })
}

func TestInvariantTruncateAfterWithSlotInFlight(t *testing.T) {
	f := newFixture(t, nil, 0)
	defer f.eng.Close()
	ts := f.write(t, bson.D{{Key: "n", Value: 1}})
	f.write(t, bson.D{{Key: "n", Value: 2}})
	f.reserveAppend(t, bson.D{{Key: "n", Value: 3}}) // reserved, never retired
	expectViolation(t, "TruncateAfter with 1 slot(s) in flight", func() { _, _ = f.log.TruncateAfter(ts) })
}

// Out-of-order commits and aborts are legal and must not trip the checks.
func TestInvariantOutOfOrderRetiresPass(t *testing.T) {
	f := newFixture(t, nil, 0)
	defer f.eng.Close()
	var slots []*Slot
	for i := 0; i < 4; i++ {
		s, b := f.reserveAppend(t, bson.D{{Key: "n", Value: i}})
		if i != 1 {
			if _, err := f.eng.Commit(b, false); err != nil {
				t.Fatal(err)
			}
		}
		slots = append(slots, s)
	}
	f.log.Commit(slots[3])
	f.log.Commit(slots[2])
	f.log.Abort(slots[1])
	if v := f.log.Visible(); !v.IsZero() {
		t.Fatalf("visible %v with slot 0 pending", v)
	}
	f.log.Commit(slots[0])
	if v := f.log.Visible(); v != slots[3].TS {
		t.Fatalf("visible %v, want %v", v, slots[3].TS)
	}
}
