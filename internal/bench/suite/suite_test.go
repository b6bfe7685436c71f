package suite

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relaydb/relaydb/internal/bench"
	"github.com/relaydb/relaydb/internal/bench/machine"
)

func TestWithWriteConcern(t *testing.T) {
	cases := []struct{ uri, opts, want string }{
		{"mongodb://h:1/ycsb", "w=0", "mongodb://h:1/ycsb?w=0"},
		{"mongodb://h:1", "w=1&journal=true", "mongodb://h:1/?w=1&journal=true"},
		{"mongodb://a:1,b:2/db?w=majority&readPreference=primary&J=true&wtimeoutMS=5", "w=1&journal=false",
			"mongodb://a:1,b:2/db?readPreference=primary&w=1&journal=false"},
	}
	for _, c := range cases {
		got, err := WithWriteConcern(c.uri, c.opts)
		if err != nil || got != c.want {
			t.Errorf("WithWriteConcern(%q, %q) = %q, %v; want %q", c.uri, c.opts, got, err, c.want)
		}
	}
	if _, err := WithWriteConcern("localhost:27017", "w=0"); err == nil {
		t.Error("URI without scheme accepted")
	}
}

func TestRedact(t *testing.T) {
	if got := redact("mongodb://u:secret@h:1/db"); got != "mongodb://u:***@h:1/db" {
		t.Errorf("redact = %s", got)
	}
	if got := redact("mongodb://h:1/db"); got != "mongodb://h:1/db" {
		t.Errorf("redact changed a URI without credentials: %s", got)
	}
}

func fakeReport() *Report {
	res := func(tput float64) *bench.Result {
		return &bench.Result{Operations: 100, RunTimeMs: 50, Throughput: tput, ServerCPUKnown: true, ServerCPUPerOp: 20,
			Ops: []bench.OpSummary{{Name: bench.OpRead, Operations: 100, AvgMicros: 150, P50Micros: 100, P95Micros: 300, P99Micros: 900,
				Returns: map[bench.Status]int64{bench.StatusOK: 99, bench.StatusNotFound: 1}}}}
	}
	rep := &Report{Name: "t", Machine: Machine{Facts: machine.Facts{Cores: 2, GoVersion: "go1.26"}}}
	rep.Entries = []Entry{
		{Workload: "load", Durability: "default", Threads: 8, Result: res(1000)},
		{Workload: "c", Durability: "default", Threads: 1, Result: res(2000)},
		{Workload: "c", Durability: "default", Threads: 8, Result: res(5000)},
		{Workload: "load", Durability: "w:1 j:true", Threads: 8, Result: res(700)},
	}
	return rep
}

func TestMarkdownAndCharts(t *testing.T) {
	rep := fakeReport()
	md := Markdown(rep, "relaydb bench suite -q")
	for _, want := range []string{
		"| C | default | 8 | 100 | 50 | 5000 | 20.0 | 0.0 |",
		"| load | w:1 j:true | 8 | READ | 100 | 150 | 100 | 300 | 900 | 0 | 1 |",
		"Command: `relaydb bench suite -q`",
		"![throughput](t-throughput.svg)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if got := threadAxis(rep); len(got) != 2 || got[0] != 1 || got[1] != 8 {
		t.Errorf("thread axis %v, want [1 8]", got)
	}
	tp := throughputChart(rep)
	if !strings.Contains(tp, ">C<") || !strings.Contains(tp, ">load w:1 j:true<") || strings.Contains(tp, ">load<") {
		t.Errorf("throughput chart series wrong")
	}
	if lat := latencyChart(rep); strings.Count(lat, "<title>") != 3*3 { // 3 entries at 8 threads x p50/p95/p99
		t.Errorf("latency chart has %d bars", strings.Count(lat, "<title>"))
	}
	dir := t.TempDir()
	paths, err := Write(rep, dir, "cmd")
	if err != nil || len(paths) != 4 {
		t.Fatalf("Write: %v %v", paths, err)
	}
	var back Report
	js, _ := os.ReadFile(filepath.Join(dir, "t.json"))
	if err := json.Unmarshal(js, &back); err != nil || len(back.Entries) != 4 || back.Machine.Cores != 2 {
		t.Fatalf("json round trip: %v %+v", err, back.Machine)
	}
}

// TestSuiteTiny runs the whole suite against a relaydb it starts, with
// tiny sizes; RELAYDB_BIN names a prebuilt binary, else it is built.
func TestSuiteTiny(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	bin := os.Getenv("RELAYDB_BIN")
	if bin == "" {
		bin = filepath.Join(t.TempDir(), "relaydb")
		if out, err := exec.Command("go", "build", "-o", bin, "github.com/relaydb/relaydb/cmd/relaydb").CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var log bytes.Buffer
	rep, err := Run(ctx, Config{StartServer: true, Binary: bin, Name: "tiny", RecordCount: 200, OperationCount: 200,
		DurabilityRecords: 50, Threads: []int{1, 4}, Workloads: []string{"a", "c"}, Log: &log, Seed: 1})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	// 1 load + 2 workloads x 2 thread counts + 3 durability modes x 2.
	if len(rep.Entries) != 1+4+6 {
		t.Fatalf("%d entries:\n%s", len(rep.Entries), log.String())
	}
	for _, e := range rep.Entries {
		if e.Result.Operations != map[bool]int64{true: 50, false: 200}[e.Durability != "default"] {
			t.Errorf("%s %s %d: %d operations", e.Workload, e.Durability, e.Threads, e.Result.Operations)
		}
		if !e.Result.ServerCPUKnown {
			t.Errorf("%s: server CPU unknown", e.Workload)
		}
	}
	if rep.Machine.ServerVersion == "" || rep.Machine.Cores == 0 {
		t.Errorf("machine facts: %+v", rep.Machine)
	}
}
