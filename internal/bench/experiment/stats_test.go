package experiment

import (
	"testing"

	"github.com/relaydb/relaydb/internal/bench"
)

func TestStatOf(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want Stat
	}{
		{nil, Stat{}},
		{[]float64{5}, Stat{5, 5, 5}},
		{[]float64{9, 1, 5}, Stat{5, 1, 9}},
		{[]float64{4, 1, 3, 2}, Stat{2.5, 1, 4}},
	} {
		if got := StatOf(tc.in); got != tc.want {
			t.Errorf("StatOf(%v) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
	if s := (Stat{Median: 5, Min: 2, Max: 8}).Spread(); s != 3 {
		t.Errorf("Spread = %v", s)
	}
}

func TestFromBench(t *testing.T) {
	res := &bench.Result{Operations: 1000, Throughput: 500, RunTimeMs: 2000,
		ServerCPUKnown: true, ServerCPUMicros: 1_000_000, ServerCPUPerOp: 1000,
		Ops: []bench.OpSummary{{Name: bench.OpInsert, Operations: 990, AvgMicros: 1500, P99Micros: 4000,
			Returns: map[bench.Status]int64{bench.StatusOK: 990, bench.StatusError: 10}}}}
	var r RunResult
	r.FromBench(res)
	if r.PrimaryCPU != 50 || r.CPUPerOpUs != 1000 || r.AvgInsertUs != 1500 || r.P99InsertUs != 4000 ||
		r.Failed != 10 || r.Throughput != 500 || !r.CPUKnown {
		t.Errorf("FromBench = %+v", r)
	}
}

func TestCellSummarize(t *testing.T) {
	c := Cell{Runs: []RunResult{
		{Throughput: 100, MaxLagSecs: 1, Failed: 1, Lag: LagSummary{Trees: map[string]int{"m0 <- m1": 3, "m0": 1}}},
		{Throughput: 300, MaxLagSecs: 4, Lag: LagSummary{Trees: map[string]int{"m0": 1}}},
		{Throughput: 200, MaxLagSecs: 2, Lag: LagSummary{Trees: map[string]int{"m0 <- m1": 1}}},
	}}
	c.Summarize()
	if c.Throughput != (Stat{200, 100, 300}) || c.MaxLagSecs != 4 || c.Failed != 1 {
		t.Errorf("summary %+v", c)
	}
	if c.Tree != "m0 <- m1" || c.Trees["m0"] != 2 {
		t.Errorf("tree %q from %v", c.Tree, c.Trees)
	}
}
