package experiment_test

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bench/experiment"
	"github.com/relaydb/relaydb/internal/bench/suite"
	"github.com/relaydb/relaydb/tests/harness"
)

// relaydbBinary skips the test in -short mode, saying why, and returns
// the relaydb binary tests/harness builds once per test process (or
// $RELAYDB_BIN).
func relaydbBinary(t *testing.T, why string) string {
	t.Helper()
	if testing.Short() {
		t.Skip(why)
	}
	bin, err := harness.Binary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// standaloneSet is one real standalone server posing as a one-member set,
// so the runner's load, write concern and CPU probe run for real without
// replication.
type standaloneSet struct{ srv *suite.Server }

func (s standaloneSet) URI() string { return s.srv.URI }
func (s standaloneSet) ReplStatus(ctx context.Context) (experiment.ReplStatus, error) {
	return experiment.ReplStatus{Members: []experiment.MemberState{{Name: "m0", Host: "h", State: "PRIMARY",
		Optime: bson.Timestamp{T: 1, I: 1}}}}, nil
}
func (s standaloneSet) Down(ctx context.Context) error { s.srv.Stop(); return nil }

// TestRunnerAgainstStandalone drives real loads through the runner.
func TestRunnerAgainstStandalone(t *testing.T) {
	bin := relaydbBinary(t, "builds and starts relaydb")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := func(ctx context.Context, g experiment.Group, dir string) (experiment.Set, error) {
		srv, err := suite.StartServer(ctx, bin, io.Discard)
		if err != nil {
			return nil, err
		}
		return standaloneSet{srv}, nil
	}
	cfg := experiment.Config{Nodes: []int{3}, Modes: []string{experiment.ModeOn}, Runs: 2, RecordCount: 300,
		Dir: t.TempDir()}
	cells, err := (&experiment.Runner{Config: cfg, Start: start}).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cells {
		if len(c.Runs) != 2 || c.Throughput.Median <= 0 || c.Failed != 0 || c.AvgInsertUs.Median <= 0 {
			t.Errorf("%v: %+v", c.Key, c)
		}
		for _, r := range c.Runs {
			if r.Operations != 300 || !r.CPUKnown || r.CPUPerOpUs <= 0 || r.Lag.Samples == 0 || c.Tree != "m0" {
				t.Errorf("%v run %d: %+v (tree %q)", c.Key, r.Run, r, c.Tree)
			}
		}
	}
}

// TestChainingExperimentEndToEnd runs a tiny matrix (3 members, every
// mode and w, one run) on real replica sets. It fails, with the reason,
// while replica sets do not work end to end.
func TestChainingExperimentEndToEnd(t *testing.T) {
	bin := relaydbBinary(t, "builds relaydb and starts three 3-member replica sets")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cfg := experiment.Config{Nodes: []int{3}, Runs: 1, RecordCount: 200, Bin: bin, Dir: t.TempDir(),
		QuiesceTimeout: 10 * time.Second}
	var log bytes.Buffer
	rep, err := experiment.Execute(ctx, cfg, "test", &log)
	if err != nil {
		t.Fatalf("the chaining experiment needs working replica sets (cluster up, replication, "+
			"replSetGetStatus): %v\nlog:\n%s", err, log.String())
	}
	for _, c := range rep.Cells {
		if len(c.Runs) != 1 || c.Runs[0].Operations != 200 || c.Failed != 0 {
			t.Errorf("%v: %+v", c.Key, c.Runs)
		}
		if !strings.HasPrefix(c.Tree, "m0") && !strings.Contains(c.Tree, " <- ") {
			t.Errorf("%v: sync-source tree %q names no primary", c.Key, c.Tree)
		}
		if c.Mode == experiment.ModeOff && strings.Count(c.Tree, " <- ") != 2 {
			t.Errorf("%v: with chaining off both members pull from the primary, tree %q", c.Key, c.Tree)
		}
	}
	if len(rep.Goal) != 2 {
		t.Errorf("goal rows %+v", rep.Goal)
	}
	t.Logf("log:\n%s", log.String())
	md := experiment.Markdown(rep)
	if !strings.Contains(md, "| 3 | majority |") {
		t.Errorf("markdown lacks the 3-node majority row:\n%s", md)
	}
}
