package experiment

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relaydb/relaydb/internal/bench/machine"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

// goldenReport is a fixed 3- and 7-node report with one failed cell.
func goldenReport() *Report {
	cfg := Config{Nodes: []int{3, 7}, Runs: 3, RecordCount: 20000}
	var cells []*Cell
	for _, k := range cfg.Keys() {
		base := map[string]float64{ModeOn: 1000, ModeOff: 900, ModeAuto: 1050}[k.Mode] / float64(k.Nodes)
		if k.W == WMajority {
			base /= 2
		}
		c := &Cell{Key: k}
		for i := 0; i < 3; i++ {
			r := RunResult{Run: i + 1, Throughput: base + float64(10*i), AvgInsertUs: 800 + float64(i),
				P99InsertUs: 3000, CPUKnown: true, PrimaryCPU: 60 + float64(i), CPUPerOpUs: 300 - float64(k.Nodes),
				MaxLagSecs: float64(i), Lag: LagSummary{Samples: 10, Behind: i, Trees: map[string]int{"m0 <- m1; m0 <- m2": 10}}}
			c.Runs = append(c.Runs, r)
		}
		if k.Nodes == 7 && k.Mode == ModeAuto && k.W == W1 {
			c.Runs, c.Error = nil, "start 7-member set (chaining auto): no primary"
		}
		c.Summarize()
		cells = append(cells, c)
	}
	m := Machine{Facts: machine.Facts{Date: "2026-01-02T03:04:05Z", Cores: 2, CPUModel: "Test CPU", MemoryMB: 4096, OS: "linux/amd64",
		Kernel: "6.0", GoVersion: "go1.26"}, Commit: "abc123"}
	return NewReport(cfg, "relaydb bench experiment chaining --nodes 3,7", m, cells, 754*time.Second)
}

func TestMarkdownGolden(t *testing.T) {
	got := Markdown(goldenReport())
	path := filepath.Join("testdata", "chaining.golden.md")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if got != string(want) {
		t.Errorf("markdown differs from %s (rerun with -update after checking):\n%s", path, got)
	}
}

func TestMarkdownContents(t *testing.T) {
	md := Markdown(goldenReport())
	for _, want := range []string{
		"| 7 | majority | 81 (71-91) | 74 (64-84) | 85 (75-95) | 61% | 61% | 61% | 0.91 | 3005 | 4312 | 56% | 85% | 1.43 |",
		"| 7 | 1 | 153 (143-163) | 139 (129-149) | - |",
		"`m0 <- m1; m0 <- m2`",
		"| 100µs | 7 | 1 | n/a | n/a | auto not measured |",
		"- latency=100µs nodes=7 w=1 chaining=auto: start 7-member set",
		"| cores | 2 |", "| commit | abc123 |", "(took 12m34s)",
		"simulatedLatency",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestReportJSONRoundTrip(t *testing.T) {
	r := goldenReport()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	cfg := back["config"].(map[string]any)
	if lat := cfg["Latencies"].([]any); len(lat) != 1 || lat[0] != "100µs" {
		t.Errorf("latencies in JSON: %v", cfg["Latencies"])
	}
	if n := len(back["cells"].([]any)); n != 12 {
		t.Errorf("%d cells in JSON", n)
	}
	if n := len(back["goal"].([]any)); n != 4 {
		t.Errorf("%d goal rows in JSON", n)
	}
}

func TestChartAndWrite(t *testing.T) {
	r := goldenReport()
	chart := Chart(r)
	for _, want := range []string{"<svg", "chaining auto", "7 nodes w:majority"} {
		if !strings.Contains(chart, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	dir := t.TempDir()
	paths, err := Write(r, dir, "chaining")
	if err != nil || len(paths) != 3 {
		t.Fatalf("Write = %v, %v", paths, err)
	}
	for _, p := range paths {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
	back, err := ReadReport(filepath.Join(dir, "chaining.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Markdown(back), Markdown(r); got != want {
		t.Errorf("markdown from the JSON differs:\n%s\nwant:\n%s", got, want)
	}
}

func TestWarningsListUnsettledRuns(t *testing.T) {
	r := goldenReport()
	r.Cells[0].Runs[1].QuiesceError = "not settled after 1m0s: members still behind the primary: m1"
	r = NewReport(r.Config, r.Command, r.Machine, r.Cells, time.Second)
	md := Markdown(r)
	if len(r.Warnings) != 1 || !strings.Contains(md, "## Warnings\n\n- latency=100µs nodes=3 w=majority chaining=on run 2 started unsettled: not settled") {
		t.Errorf("warnings %v in:\n%s", r.Warnings, md)
	}
}

func TestShellJoin(t *testing.T) {
	got := ShellJoin([]string{"--add", "1,2", "-out", "bench/results", "--note", "it's busy", ""})
	if want := `--add 1,2 -out bench/results --note 'it'\''s busy' ''`; got != want {
		t.Errorf("ShellJoin = %s, want %s", got, want)
	}
}
