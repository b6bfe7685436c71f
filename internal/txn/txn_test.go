package txn

import (
	"testing"
	"time"

	"github.com/relaydb/relaydb/internal/catalog/catalogtest"
	"github.com/relaydb/relaydb/internal/session"
)

// TestManager: a newer transaction aborts the session's older one, the
// reaper aborts one past its lifetime, StepDown aborts those in progress
// but not one a statement holds.
func TestManager(t *testing.T) {
	m := NewManager(catalogtest.OpenMem(t))
	a, b := session.Key("a"), session.Key("b")
	t1 := m.Start(a, 1, false)
	t1.Unlock()
	t2 := m.Start(a, 2, false)
	t2.Unlock()
	if t1.State() != Aborted || m.Get(a) != t2 {
		t.Fatalf("older transaction %v, current %v", t1.State(), m.Get(a).Number)
	}
	old := SetLifetimeSeconds(1)
	defer SetLifetimeSeconds(old)
	if n := m.Reap(time.Now().Add(2 * time.Second)); n != 1 || t2.State() != Aborted {
		t.Fatalf("reaper aborted %d, state %v", n, t2.State())
	}
	t3 := m.Start(b, 1, false) // held by a statement
	t4 := m.Start(a, 3, false)
	t4.Unlock()
	if n := m.StepDown(); n != 1 || t4.State() != Aborted || t3.State() != InProgress {
		t.Fatalf("step-down aborted %d: held %v, idle %v", n, t3.State(), t4.State())
	}
	t3.End(Committed, "")
	t3.Unlock()
	if t3.Cat != nil || t3.State() != Committed {
		t.Fatalf("ended transaction: %v %v", t3.Cat, t3.State())
	}
}
