package shardexp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relaydb/relaydb/internal/bench/shardexp"
	"github.com/relaydb/relaydb/tests/harness"
)

// TestShardingExperimentEndToEnd runs "relaydb bench experiment sharding"
// through the real binary on a tiny configuration (2 shards, 1 router,
// 300 records, 2 s per cell, the baseline series) and checks its
// markdown and JSON: both cells ran through the router with nonzero
// throughput and no failed operation, and every shard got documents.
func TestShardingExperimentEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds relaydb and starts a sharded cluster")
	}
	out := t.TempDir()
	harness.RunBinary(t, 2*time.Minute, "bench", "experiment", "sharding", "--series", "baseline", "--shards", "2",
		"--routers", "1", "--records", "300", "--threads", "4", "--duration", "2s", "--runs", "1", "--dir", t.TempDir(),
		"--out", out, "--name", "e2e")
	rep, err := shardexp.ReadReport(filepath.Join(out, "e2e.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cells) != 2 || len(rep.Clusters) != 1 {
		t.Fatalf("want 2 cells on 1 cluster, got %d on %d", len(rep.Cells), len(rep.Clusters))
	}
	for _, c := range rep.Cells {
		m := c.Median
		if m.Throughput <= 0 || m.Failed != 0 || m.Reads == 0 || m.Updates == 0 || m.Clients != 1 || c.Error != "" {
			t.Errorf("%v: %+v (error %q)", c.Key, m, c.Error)
		}
	}
	cl := rep.Clusters[0]
	if cl.SettleFailed != 0 {
		t.Errorf("settle writes failed: %d, last %s", cl.SettleFailed, cl.SettleError)
	}
	if cl.LoadOps != 300 || cl.LoadFailed != 0 || len(cl.DocsPerShard) != 2 || cl.DocsPerShard[0] == 0 ||
		cl.DocsPerShard[1] == 0 || cl.DocsPerShard[0]+cl.DocsPerShard[1] != 300 {
		t.Errorf("cluster %+v: want 300 documents loaded and spread over both shards", cl)
	}
	md, err := os.ReadFile(filepath.Join(out, "e2e.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| A | 2 | rs=1 | w:1 j:true | 300 | 4 |", "| B | 2 | rs=1 | w:1 j:true | 300 | 4 |",
		"| baseline | throughput B / A |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(string(md), "## Warnings") {
		t.Errorf("warnings in a clean run:\n%s", md)
	}
	if _, err := os.Stat(filepath.Join(out, "e2e.svg")); err != nil {
		t.Error(err)
	}
}
