package shardexp

import (
	"strings"
	"testing"
	"time"

	"github.com/relaydb/relaydb/internal/bench/experiment"
	"github.com/relaydb/relaydb/internal/bench/machine"
)

// reportOf is a report where every planned cell ran with f's figures.
func reportOf(cfg Config, f func(Key) Measure) *Report {
	var clusters []ClusterResult
	var cells []*Cell
	for _, top := range Plan(cfg) {
		clusters = append(clusters, ClusterResult{Topology: top, Balancer: "stopped", LoadOps: top.Records,
			DocsPerShard: make([]int64, top.Shards)})
		for i := range clusters[len(clusters)-1].DocsPerShard {
			clusters[len(clusters)-1].DocsPerShard[i] = top.Records / int64(top.Shards)
		}
		for _, k := range top.Keys {
			cells = append(cells, &Cell{Key: k, Records: top.Records, Threads: top.Threads, Median: f(k), Runs: []Measure{f(k)}})
		}
	}
	return NewReport(cfg, "relaydb bench experiment sharding", experiment.Machine{Facts: machine.Facts{Cores: 2}}, clusters, cells, time.Minute)
}

func TestMarkdown(t *testing.T) {
	cfg := Config{}.WithDefaults()
	r := reportOf(cfg, referenceLike)
	r.Note = "a busy machine"
	md := Markdown(r)
	for _, want := range []string{
		"Note: a busy machine\n",
		"## Baseline (w:1 j:true, single-member shards)",
		"| A | 2 | rs=1 | w:1 j:true | 20000 | 16 | 1000 | 0.50 | - | 6.00 | - | 0 | 28,529 ops/s, read 0.64 ms, update 8.3 ms (4 shards) |",
		"| A | 2 | rs=1 | w:0 j:false | 20000 | 16 | 1500 | 0.50 | - | 0.036 | - | 0 | update 0.025 ms |",
		"| B | 2 | rs=3 (2 data + arbiter) | w:\"majority\" j:true |",
		"| B | 8 | rs=1 | w:1 j:true | 80000 | 64 | 12000 |",
		"update 11.9 ms (8 shards)",
		"| baseline | throughput B / A | 4.19 (119,554 / 28,529 ops/s) | 3 | yes |",
		"24 of 24 measured ratios go the reference's way.",
		"Compare shapes and ratios, not absolute numbers",
		"| 8 | rs=1 | 80000 | 64 |",
		"every cluster ran workload A unmeasured for 5s",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if strings.Contains(md, "## Warnings") {
		t.Errorf("clean report has warnings:\n%s", md)
	}
}

func TestWarnings(t *testing.T) {
	cfg := Config{Series: []string{SeriesBaseline}}.WithDefaults()
	r := reportOf(cfg, func(k Key) Measure { return Measure{Operations: 10, Throughput: 5, Failed: 3} })
	r.Clusters[0].DocsPerShard[1] = 0
	r.Clusters[0].LoadFailed = 7
	r.Clusters[0].Balancer = "CommandNotFound"
	r.Clusters[0].StartRetried = "port taken"
	r.Clusters[0].SettleFailed, r.Clusters[0].SettleError = 2, "settle shard 1: timeout"
	r.Cells[0].Error = "run 1: client 0: boom"
	r.Cells[1].Error, r.Cells[1].Runs = "not run: start failed", nil
	r = NewReport(r.Config, r.Command, r.Machine, r.Clusters, r.Cells, time.Minute)
	md := Markdown(r)
	for _, want := range []string{"## Warnings", "shard sh1 holds no documents", "7 of 20000 inserts failed",
		"balancer not stopped (CommandNotFound)", "workload a w:1 j:true: run 1: client 0: boom", "3 operations failed", "the first start failed (port taken)",
		"| B | 2 | rs=1 | w:1 j:true | 20000 | 16 | not run |",
		"2 settle writes failed (last: settle shard 1: timeout)"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestChartHasEveryGroup(t *testing.T) {
	cfg := Config{}.WithDefaults()
	svg := Chart(reportOf(cfg, referenceLike))
	for _, want := range []string{"2 sh rs=1 w:1 j:true", "2 sh rs=1 w:0 j:false", "2 sh rs=3 w:&#34;majority&#34; j:true",
		"8 sh rs=1 w:1 j:true", "workload A", "workload B"} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
}
