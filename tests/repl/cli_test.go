package repl

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/relaydb/relaydb/tests/harness"
)

// runCLI runs `relaydb cluster args...` (bounded) and returns stdout,
// stderr and the error.
func runCLI(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	bin, err := harness.Binary()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, append([]string{"cluster"}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

// TestClusterCLI drives `relaydb cluster up/status/kill/restart/down` as an
// operator would: up prints the connection string, status shows a PRIMARY
// and two SECONDARY members, a killed member is reported down and comes
// back after restart, down stops every process.
func TestClusterCLI(t *testing.T) {
	requireReplication(t)
	dir := t.TempDir()
	t.Cleanup(func() { _, _, _ = runCLI(t, "down", "--dir", dir) })
	stdout, stderr, err := runCLI(t, "up", "--dir", dir, "--data", "3", "--timeout", "20s")
	if err != nil {
		t.Fatalf("cluster up: %v\nstderr: %s\n%s", err, stderr, logTails(dir, 3))
	}
	uri := strings.TrimSpace(stdout)
	if !strings.HasPrefix(uri, "mongodb://127.0.0.1:") || !strings.HasSuffix(uri, "/?replicaSet=rs0") || strings.Count(uri, ",") != 2 {
		t.Fatalf("cluster up printed %q, want mongodb://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3/?replicaSet=rs0", uri)
	}
	statusHas(t, dir, "PRIMARY", 1, "SECONDARY", 2)
	if _, stderr, err := runCLI(t, "kill", "--dir", dir, "m2"); err != nil {
		t.Fatalf("cluster kill m2: %v\n%s", err, stderr)
	}
	stdout, _, _ = runCLI(t, "status", "--dir", dir)
	if line := memberLine(stdout, "m2"); !strings.Contains(line, " down ") {
		t.Fatalf("status after kill m2: line %q, want process down\n%s", line, stdout)
	}
	if _, stderr, err := runCLI(t, "restart", "--dir", dir, "m2"); err != nil {
		t.Fatalf("cluster restart m2: %v\n%s", err, stderr)
	}
	eventually(t, 15*time.Second, "m2 SECONDARY again", func() error {
		return statusCount(dir, "SECONDARY", 2)
	})
	if _, stderr, err := runCLI(t, "down", "--dir", dir); err != nil {
		t.Fatalf("cluster down: %v\n%s", err, stderr)
	}
	stdout, _, err = runCLI(t, "status", "--dir", dir)
	if err == nil || strings.Contains(stdout, "running") {
		t.Fatalf("status after down: err %v, output\n%s\nwant every member down and an error exit", err, stdout)
	}
}

func memberLine(status, name string) string {
	for _, l := range strings.Split(status, "\n") {
		if strings.HasPrefix(l, name+" ") {
			return l
		}
	}
	return ""
}

// statusHas waits (bounded) until `cluster status` shows the given state
// counts (pairs of state, count).
func statusHas(t *testing.T, dir string, pairs ...any) {
	t.Helper()
	eventually(t, 10*time.Second, "cluster status", func() error {
		for i := 0; i < len(pairs); i += 2 {
			if err := statusCount(dir, pairs[i].(string), pairs[i+1].(int)); err != nil {
				return err
			}
		}
		return nil
	})
}

func statusCount(dir, state string, n int) error {
	bin, _ := harness.Binary()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, bin, "cluster", "status", "--dir", dir).Output()
	got := 0
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) > 5 && f[5] == state {
			got++
		}
	}
	if got != n {
		return fmt.Errorf("cluster status shows %d %s, want %d:\n%s", got, state, n, out)
	}
	return nil
}
