package experiment

import (
	"sort"

	"github.com/relaydb/relaydb/internal/bench"
)

// Stat is one figure over a cell's runs.
type Stat struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// Spread is half the run-to-run range, the tolerance the goal check uses.
func (s Stat) Spread() float64 { return (s.Max - s.Min) / 2 }

// StatOf summarises vs (median of an even count is the mean of the middle
// two); the zero Stat for no values.
func StatOf(vs []float64) Stat {
	if len(vs) == 0 {
		return Stat{}
	}
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	mid := len(s) / 2
	med := s[mid]
	if len(s)%2 == 0 {
		med = (s[mid-1] + s[mid]) / 2
	}
	return Stat{Median: med, Min: s[0], Max: s[len(s)-1]}
}

// RunResult is one load of one cell.
type RunResult struct {
	Run          int           `json:"run"`
	Seed         uint64        `json:"seed"`
	Operations   int64         `json:"operations"`
	Failed       int64         `json:"failedInserts"`
	Throughput   float64       `json:"throughputOpsPerSec"`
	AvgInsertUs  float64       `json:"avgInsertLatencyUs"`
	P99InsertUs  float64       `json:"p99InsertLatencyUs"`
	CPUKnown     bool          `json:"primaryCpuKnown"`
	PrimaryCPU   float64       `json:"primaryCpuPercent"`  // core-time / wall time × 100
	CPUPerOpUs   float64       `json:"primaryCoreUsPerOp"` // core-µs per operation
	MaxLagSecs   float64       `json:"maxReplicationLagSecs"`
	Lag          LagSummary    `json:"lag"`
	QuiesceMs    int64         `json:"quiesceBeforeMs"` // wait for members before the run
	QuiesceError string        `json:"quiesceError,omitempty"`
	Error        string        `json:"error,omitempty"` // the load ended early
	Raw          *bench.Result `json:"raw"`
}

// FromBench fills r's client-side figures from a phase result.
func (r *RunResult) FromBench(res *bench.Result) {
	r.Raw = res
	r.Operations, r.Throughput = res.Operations, res.Throughput
	if o, ok := res.Op(bench.OpInsert); ok {
		r.AvgInsertUs, r.P99InsertUs = o.AvgMicros, float64(o.P99Micros)
		for st, n := range o.Returns {
			if !st.OK() {
				r.Failed += n
			}
		}
	}
	r.CPUKnown = res.ServerCPUKnown
	if res.ServerCPUKnown && res.RunTimeMs > 0 {
		r.PrimaryCPU = float64(res.ServerCPUMicros) / float64(res.RunTimeMs*1000) * 100
		r.CPUPerOpUs = res.ServerCPUPerOp
	}
}

// Cell is one cell's runs and their summary.
type Cell struct {
	Key
	Runs        []RunResult    `json:"runs"`
	Throughput  Stat           `json:"throughput"`
	AvgInsertUs Stat           `json:"avgInsertLatencyUs"`
	P99InsertUs Stat           `json:"p99InsertLatencyUs"`
	PrimaryCPU  Stat           `json:"primaryCpuPercent"`
	CPUPerOpUs  Stat           `json:"primaryCoreUsPerOp"`
	MaxLagSecs  float64        `json:"maxReplicationLagSecs"` // max over runs
	Failed      int64          `json:"failedInserts"`         // sum over runs
	Tree        string         `json:"syncSourceTree"`        // most observed over runs
	Trees       map[string]int `json:"syncSourceTrees"`       // every tree seen, by polls
	LagByDepth  []DepthLag     `json:"lagByDepth"`            // all runs' polls, by sync-source depth
	Error       string         `json:"error,omitempty"`       // why runs are missing
}

// Summarize recomputes c's summary from c.Runs.
func (c *Cell) Summarize() {
	pick := func(f func(RunResult) float64) Stat {
		vs := make([]float64, 0, len(c.Runs))
		for _, r := range c.Runs {
			vs = append(vs, f(r))
		}
		return StatOf(vs)
	}
	c.Throughput = pick(func(r RunResult) float64 { return r.Throughput })
	c.AvgInsertUs = pick(func(r RunResult) float64 { return r.AvgInsertUs })
	c.P99InsertUs = pick(func(r RunResult) float64 { return r.P99InsertUs })
	c.PrimaryCPU = pick(func(r RunResult) float64 { return r.PrimaryCPU })
	c.CPUPerOpUs = pick(func(r RunResult) float64 { return r.CPUPerOpUs })
	c.MaxLagSecs, c.Failed, c.Trees = 0, 0, map[string]int{}
	for _, r := range c.Runs {
		c.MaxLagSecs = max(c.MaxLagSecs, r.MaxLagSecs)
		c.Failed += r.Failed
		for t, n := range r.Lag.Trees {
			c.Trees[t] += n
		}
	}
	c.Tree = mostSeen(c.Trees)
	depths := make([][]DepthLag, 0, len(c.Runs))
	for _, r := range c.Runs {
		depths = append(depths, r.Lag.ByDepth)
	}
	c.LagByDepth = mergeDepths(depths...)
}

// mostSeen is the key with the highest count (ties: the smallest key), or
// "" for none.
func mostSeen(m map[string]int) string {
	best, bestN := "", 0
	for k, n := range m {
		if n > bestN || (n == bestN && k < best) {
			best, bestN = k, n
		}
	}
	return best
}
