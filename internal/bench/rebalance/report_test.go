package rebalance

import (
	"strings"
	"testing"
	"time"
)

// run makes a run whose all-ops p99 is before and during.
func run(n int, before, during float64, failed string) Run {
	r := Run{N: n, Error: failed, Moves: Moves{Bytes: int64(during * MB), Count: 2}}
	for _, p := range []struct {
		name string
		p99  float64
	}{{PhaseBefore, before}, {PhaseDuring, during}, {PhaseAfter, before}} {
		r.Phases = append(r.Phases, PhaseStats{Phase: Phase{Name: p.name}, Secs: 10,
			All: Latency{P99: p.p99}, Read: Latency{P99: p.p99}, Update: Latency{P99: 2 * p.p99}})
	}
	return r
}

func TestCaseSummarize(t *testing.T) {
	cases := []struct {
		name  string
		runs  []Run
		n     int
		ratio float64
		met   bool
		goal  string
	}{
		{"median of three", []Run{run(1, 1, 3, ""), run(2, 1, 1.5, ""), run(3, 1, 1.8, "")}, 3, 1.8, true, "met"},
		{"missed", []Run{run(1, 1, 3, ""), run(2, 1, 2.5, ""), run(3, 1, 1, "")}, 3, 2.5, false, "MISSED"},
		{"even count: mean of the middle two", []Run{run(1, 1, 1, ""), run(2, 1, 3, "")}, 2, 2, true, "met"},
		{"failed runs left out", []Run{run(1, 1, 9, "boom"), run(2, 1, 1.2, "")}, 1, 1.2, true, "met"},
		{"no run", []Run{run(1, 1, 1, "boom")}, 0, 0, false, "no run"},
		{"before zero", []Run{run(1, 0, 1, "")}, 1, 0, true, "met"},
	}
	for _, c := range cases {
		k := Case{Add: 1, From: 2, Runs: c.runs}
		k.Summarize()
		m := k.Median
		if m.Runs != c.n || m.P99Ratio != c.ratio || m.GoalMet != c.met || goal(m) != c.goal {
			t.Errorf("%s: %+v (goal %s)", c.name, m, goal(m))
		}
		if c.n > 0 && m.ReadRatio != c.ratio {
			t.Errorf("%s: read ratio %v", c.name, m.ReadRatio)
		}
	}
}

func TestMarkdown(t *testing.T) {
	k := Case{Add: 2, From: 2, Runs: []Run{run(1, 1, 3, ""), run(2, 1, 2.5, "start failed")}}
	k.Runs[0].ChunksBefore = map[string]int{"sh1": 8, "sh0": 8}
	k.Summarize()
	md := Markdown(&Report{Command: "relaydb bench experiment rebalance --add 2", Config: Config{}.WithDefaults(), Cases: []Case{k}})
	for _, want := range []string{"| 2 -> 4 shards | 1 |", "| 3.00 | MISSED |", "sh0:8 sh1:8", `error "start failed"`,
		"--add 2`", "| 2 -> 4 | during |"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if Chart(k) != "" {
		t.Errorf("a chart without a timeline")
	}
	k.Runs[0].Timeline = Timeline1s{Read: []float64{1, 2, 3}, Update: []float64{2, 3, 4}}
	if s := Chart(k); !strings.Contains(s, "<svg") || !strings.Contains(s, "4 shards, run 1") {
		t.Errorf("chart: %.200s", s)
	}
}

func TestConfigValidate(t *testing.T) {
	ok := Config{}.WithDefaults()
	if err := ok.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	if ok.Shards != 2 || ok.Adds[0] != 1 || ok.Fraction != 0.5 || ok.Workload != "a" || ok.Runs != 3 {
		t.Errorf("defaults: %+v", ok)
	}
	bad := []func(*Config){
		func(c *Config) { c.Adds = []int{0} },
		func(c *Config) { c.Workload = "e" },
		func(c *Config) { c.Fraction = 1.5 },
		func(c *Config) { c.ChunkSizeMB = 0 },
		func(c *Config) { c.Before = 0 },
		func(c *Config) { c.Routers = -1 },
		func(c *Config) { c.Quiet = -1 },
	}
	for i, f := range bad {
		c := ok
		f(&c)
		if c.Validate() == nil {
			t.Errorf("case %d: %+v accepted", i, c)
		}
	}
	if got, err := parseInts("1, 2,"); err != nil || len(got) != 2 || got[1] != 2 {
		t.Errorf("parseInts: %v %v", got, err)
	}
	if _, err := parseInts("x"); err == nil {
		t.Errorf("parseInts(x) accepted")
	}
}

func TestRemeasure(t *testing.T) {
	t0 := time.Unix(1000, 0)
	r := run(1, 1, 2, "")
	r.T0 = t0
	r.Phases[1].Phase = NewPhase(PhaseDuring, 10*time.Second, 20*time.Second)
	r.Migrations = []Migration{
		{End: t0.Add(12 * time.Second), TookMs: 500, ClonedBytes: 2e6, Decision: "committed"},
		{End: t0.Add(25 * time.Second), TookMs: 500, ClonedBytes: 9e6, Decision: "committed"}, // after the phase
	}
	k := Case{Runs: []Run{r, run(2, 1, 2, "")}}
	k.Remeasure()
	if mv := k.Runs[0].Moves; mv.Count != 1 || mv.Bytes != 2e6 || mv.MedTookMs != 500 || mv.PerMigMedMB != 4 {
		t.Errorf("remeasured: %+v", mv)
	}
	if mv := k.Runs[1].Moves; mv.Count != 2 { // no T0: left as it was
		t.Errorf("run without T0 changed: %+v", mv)
	}
}
