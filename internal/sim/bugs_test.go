package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestBugsAreCaught injects known replication defects and requires the
// invariant checks to fail: the simulation can find a bug the day one is
// introduced. Each defect must be caught by some random schedule among the
// first seeds, and the rollback defects by the scripted rollback scenario.
func TestBugsAreCaught(t *testing.T) {
	for _, tc := range []struct {
		name   string
		bug    Bug
		script bool // the rollback scenario shows it too
	}{
		{"skip-undo", BugSkipUndo, true},
		{"ignore-divergence", BugIgnoreDivergence, true},
		{"report-ahead", BugReportAhead, false}, // needs a primary to die first
	} {
		t.Run(tc.name+"/script", func(t *testing.T) {
			if !tc.script {
				return
			}
			out := rollbackScenario(t, tc.bug)
			t.Log(tail(out, 4))
			if !strings.Contains(out, "NOT CONVERGED") && !strings.Contains(out, "ERROR") {
				t.Fatalf("bug %s not caught by the rollback scenario:\n%s", tc.name, out)
			}
		})
		t.Run(tc.name+"/chaos", func(t *testing.T) {
			for seed := uint64(1); seed <= 20; seed++ {
				if _, err := runChaos(t, Options{N: 3, Seed: seed, Bug: tc.bug}, 20*time.Second); err != nil {
					t.Logf("caught with seed %d: %v", seed, err)
					return
				}
			}
			t.Fatalf("bug %s not caught by 20 random schedules", tc.name)
		})
	}
}

// rollbackScenario runs testdata/rollback.txt's steps with bug injected
// and returns the combined output.
func rollbackScenario(t *testing.T, bug Bug) string {
	s := &Script{Dir: t.TempDir()}
	defer s.Close()
	var out strings.Builder
	for _, line := range []string{"init n=3", "run 3s", "write 3", "run 500ms", "partition 1/0,2",
		"write 4 on=n1", "run 3s", "write 2", "heal", "run 3s", "check", "converged"} {
		if line == "run 3s" && s.cl != nil {
			s.cl.opts.Bug = bug
		}
		got, err := s.Exec(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		fmt.Fprintf(&out, "%s\n%s\n", line, got)
	}
	return out.String()
}
