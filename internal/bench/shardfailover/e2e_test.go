package shardfailover_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relaydb/relaydb/internal/bench/shardfailover"
	"github.com/relaydb/relaydb/tests/harness"
)

// TestShardFailoverEndToEnd runs the experiment through the real binary
// (harness.Binary, or $RELAYDB_BIN): one trial per mode on a small
// sharded cluster, and checks the files it writes.
func TestShardFailoverEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two sharded clusters")
	}
	out := t.TempDir()
	harness.RunBinary(t, 4*time.Minute, "bench", "experiment", "shard-failover", "-trials", "1",
		"-routers", "2", "-config-members", "1", "-recordcount", "200", "-threads", "4", "-settle", "1500ms",
		"-dir", t.TempDir(), "-out", out, "-name", "e2e", "-note", "A test run.")
	js, err := os.ReadFile(filepath.Join(out, "e2e.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r shardfailover.Report
	if err := json.Unmarshal(js, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Modes) != 2 || r.Modes[0].Mode != shardfailover.ModeReplicaSet || r.Modes[1].Mode != shardfailover.ModeSingle {
		t.Fatalf("modes %+v", r.Modes)
	}
	for _, m := range r.Modes {
		if len(m.Trials) != 1 || m.FailedTrials != 0 || m.Err != "" {
			t.Errorf("%s: trials %+v, error %q", m.Mode, m.Trials, m.Err)
			continue
		}
		tr := m.Trials[0]
		// a kill -9 of a primary cannot go unnoticed: the shard's ops stall or fail for an election or a restart
		if tr.InterruptionMs <= 0 || tr.GapMs < tr.StallThresholdMs || tr.Failed+tr.Stalled == 0 || tr.PrimaryMs <= 0 {
			t.Errorf("%s: trial %+v shows no interruption", m.Mode, tr)
		}
		if m.Loss.Err != "" || m.Loss.Lost() != 0 || m.Loss.Documents != 200 || m.Loss.AckedWrites <= 200 {
			t.Errorf("%s: read-back %+v", m.Mode, m.Loss)
		}
	}
	if m := r.Modes[0]; m.Trials[0].RejoinMs <= 0 || m.Trials[0].NewPrimary == m.Trials[0].Killed {
		t.Errorf("replica-set trial %+v: the killed member must be replaced and rejoin", m.Trials[0])
	}
	if m := r.Modes[1]; m.Trials[0].RestartMs <= 0 || m.Trials[0].NewPrimary != m.Trials[0].Killed {
		t.Errorf("single-member trial %+v: the killed member must come back as primary", m.Trials[0])
	}
	md, err := os.ReadFile(filepath.Join(out, "e2e.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| replica set (3 members) | 1 (0 failed) |", "| single member | 1 (0 failed) |",
		"A test run.", "## Trials: single member"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}
