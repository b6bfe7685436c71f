package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/relaydb/relaydb/internal/bugs"
)

// TestBugsAreCaught switches on defects injected into the real
// replication code (package bugs) and requires the invariant checks to
// fail: the simulation finds such a bug the day one is introduced. Each
// must be caught by a random schedule among the first seeds of its set
// size (the commit point over non-voters needs members that do not vote),
// and the rollback defect by the scripted rollback scenario too.
func TestBugsAreCaught(t *testing.T) {
	for _, tc := range []struct {
		bug    bugs.Bug
		n      int
		script bool // the rollback scenario shows it too
	}{
		{bugs.CommitOverNonVoters, 15, false},
		{bugs.DoubleVote, 7, false},
		{bugs.ApplierSkipsInsert, 3, false},
		{bugs.RollbackSkipsUndo, 3, true},
	} {
		t.Run(tc.bug.String()+"/script", func(t *testing.T) {
			if !tc.script {
				return
			}
			out := rollbackScenario(t, tc.bug)
			t.Log(tail(out, 4))
			if !strings.Contains(out, "NOT CONVERGED") && !strings.Contains(out, "ERROR") {
				t.Fatalf("bug %s not caught by the rollback scenario:\n%s", tc.bug, out)
			}
		})
		t.Run(tc.bug.String()+"/chaos", func(t *testing.T) {
			defer bugs.Set(tc.bug)()
			for seed := uint64(1); seed <= 20; seed++ {
				if _, err := runChaos(t, Options{N: tc.n, Seed: seed}, 20*time.Second); err != nil {
					t.Logf("caught with seed %d: %v", seed, err)
					return
				}
			}
			t.Fatalf("bug %s not caught by 20 random schedules", tc.bug)
		})
	}
}

// rollbackScenario runs testdata/rollback.txt's steps with bug switched
// on once the set has its first primary, and returns the output.
func rollbackScenario(t *testing.T, bug bugs.Bug) string {
	s := &Script{Dir: t.TempDir()}
	defer s.Close()
	var out strings.Builder
	for _, line := range []string{"init n=3", "run 3s", "write 3", "run 500ms", "partition primary/n1,n2",
		"write 4 on=n0", "run 3s", "write 2", "heal", "run 3s", "check", "converged"} {
		if line == "write 3" {
			defer bugs.Set(bug)()
		}
		got, err := s.Exec(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		fmt.Fprintf(&out, "%s\n%s\n", line, got)
	}
	return out.String()
}
