package rebalance_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/relaydb/relaydb/internal/bench/rebalance"
	"github.com/relaydb/relaydb/tests/harness"
)

// TestRebalanceExperimentEndToEnd runs "relaydb bench experiment
// rebalance" through the real binary on a tiny configuration (2 shards
// + 1 added, 8000 records, 2 s phases, one run) and checks its JSON: the
// three phases ran with operations and none failed, the balancer moved
// at least one range onto the new shard (clonedBytes from the donor's
// log), the new shard owns chunks afterwards, and the markdown and chart
// were written.
func TestRebalanceExperimentEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds relaydb and starts a sharded cluster")
	}
	out := t.TempDir()
	harness.RunBinary(t, 4*time.Minute, "bench", "experiment", "rebalance", "--records", "8000", "--threads", "4",
		"--routers", "1", "--probe", "1s", "--before", "2s", "--after", "2s", "--quiet", "1s", "--max-during", "90s",
		"--runs", "1", "--dir", t.TempDir(), "--out", out, "--name", "e2e")
	rep, err := rebalance.ReadReport(filepath.Join(out, "e2e.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) != 1 || len(rep.Cases[0].Runs) != 1 {
		t.Fatalf("want one case of one run: %+v", rep.Cases)
	}
	r := rep.Cases[0].Runs[0]
	if r.Error != "" || r.TimedOut || len(r.Phases) != 3 {
		t.Fatalf("run: error %q, timed out %v, %d phases", r.Error, r.TimedOut, len(r.Phases))
	}
	for _, p := range r.Phases {
		if p.All.Ops == 0 || p.Failed != 0 || p.Read.Ops == 0 || p.Update.Ops == 0 {
			t.Errorf("phase %s: %+v", p.Phase.Name, p)
		}
	}
	if r.Moves.Count == 0 || r.Moves.Bytes == 0 || r.Moves.PerMigMedMB <= 0 {
		t.Errorf("no migration measured in the during phase: %+v (all: %+v)", r.Moves, r.Migrations)
	}
	if r.ChunksAfter["sh2"] == 0 || r.ChunksBefore["sh2"] != 0 {
		t.Errorf("chunks before %v, after %v: want the added sh2 to own chunks after only", r.ChunksBefore, r.ChunksAfter)
	}
	if r.TargetOpsSec <= 0 || r.TargetOpsSec > r.ProbeOpsSec {
		t.Errorf("target %v ops/s of a probe of %v", r.TargetOpsSec, r.ProbeOpsSec)
	}
	for _, f := range []string{"e2e.md", "e2e-add1.svg"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}
