package secexp

import (
	"fmt"
	"sort"
	"strings"

	"github.com/relaydb/relaydb/internal/bench"
	"github.com/relaydb/relaydb/internal/bench/experiment"
)

// Report is the experiment's result.
type Report struct {
	Command string   `json:"command"`
	Notes   string   `json:"notes,omitempty"`
	Config  Config   `json:"config"`
	Samples []Sample `json:"samples"`
	Ratios  []Ratio  `json:"ratios"`
}

// Ratio is one variant's throughput over plain's, per run, for one phase.
type Ratio struct {
	Variant string    `json:"variant"`
	Phase   string    `json:"phase"` // "load" or "c"
	PerRun  []float64 `json:"perRun"`
	Median  float64   `json:"median"`
	Goal    float64   `json:"goal,omitempty"` // minimum median; 0: none
	Verdict string    `json:"verdict"`        // PASS, MISS or n/a
	// CPU is the variant's server core-µs per operation over plain's, per
	// run, and CPUMedian their median (1.05: 5 % more CPU per operation).
	CPU       []float64 `json:"cpuPerRun"`
	CPUMedian float64   `json:"cpuMedian"`
}

// finish computes the ratios from the samples.
func (r *Report) finish() {
	r.Ratios = nil
	for _, v := range r.Config.Variants[1:] {
		for _, ph := range []string{"load", "c"} {
			r.Ratios = append(r.Ratios, r.ratio(v, ph))
		}
	}
}

func (r *Report) ratio(v, ph string) Ratio {
	out := Ratio{Variant: v, Phase: ph, Goal: goals[v], Verdict: experiment.NA}
	for run := 1; run <= r.Config.Runs; run++ {
		base, got := r.sample(Plain, run), r.sample(v, run)
		if base == nil || got == nil || throughput(base, ph) == 0 {
			continue
		}
		out.PerRun = append(out.PerRun, throughput(got, ph)/throughput(base, ph))
		if bc := result(base, ph).ServerCPUPerOp; bc > 0 {
			out.CPU = append(out.CPU, result(got, ph).ServerCPUPerOp/bc)
		}
	}
	if len(out.CPU) > 0 {
		out.CPUMedian = median(out.CPU)
	}
	if len(out.PerRun) == 0 {
		return out
	}
	out.Median = median(out.PerRun)
	if out.Goal > 0 {
		out.Verdict = experiment.Miss
		if out.Median >= out.Goal {
			out.Verdict = experiment.Pass
		}
	}
	return out
}

func (r *Report) sample(v string, run int) *Sample {
	for i := range r.Samples {
		if s := &r.Samples[i]; s.Variant == v && s.Run == run {
			return s
		}
	}
	return nil
}

func throughput(s *Sample, ph string) float64 { return result(s, ph).Throughput }

// result is a sample's result of phase ph (a zero one if it did not run).
func result(s *Sample, ph string) *bench.Result {
	r := s.Read
	if ph == "load" {
		r = s.Load
	}
	if r == nil {
		return &bench.Result{}
	}
	return r
}

func median(vs []float64) float64 {
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Markdown renders the report.
func Markdown(r *Report) string {
	var b strings.Builder
	c := r.Config
	fmt.Fprintf(&b, "# Security cost: auth and TLS vs a plain node\n\n`%s`\n\n", r.Command)
	fmt.Fprintf(&b, "One fresh single node per variant and run; YCSB load of %d records, then workload C for %d operations, %d client threads; "+
		"client and server share the machine. Ratios are a variant's throughput over the plain node's in the same run.\n\n",
		c.Records, c.Ops, c.Threads)
	if r.Notes != "" {
		fmt.Fprintf(&b, "%s\n\n", r.Notes)
	}
	b.WriteString("| run | variant | load ops/s | load server core-µs/op | C ops/s | C server core-µs/op |\n| ---: | --- | ---: | ---: | ---: | ---: |\n")
	for _, s := range r.Samples {
		fmt.Fprintf(&b, "| %d | %s | %.0f | %.1f | %s | %s |\n", s.Run, s.Variant, s.Load.Throughput, s.Load.ServerCPUPerOp,
			resultOr(s, func() string { return fmt.Sprintf("%.0f", s.Read.Throughput) }),
			resultOr(s, func() string { return fmt.Sprintf("%.1f", s.Read.ServerCPUPerOp) }))
	}
	b.WriteString("\n| variant | phase | throughput ratio per run | median | goal | verdict | server CPU/op ratio, median |\n| --- | --- | --- | ---: | ---: | --- | ---: |\n")
	for _, q := range r.Ratios {
		per := make([]string, len(q.PerRun))
		for i, v := range q.PerRun {
			per[i] = fmt.Sprintf("%.3f", v)
		}
		goal := "-"
		if q.Goal > 0 {
			goal = fmt.Sprintf("≥ %.2f", q.Goal)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.3f | %s | %s | %.3f |\n", q.Variant, q.Phase, strings.Join(per, ", "), q.Median, goal, q.Verdict, q.CPUMedian)
	}
	return b.String()
}

func resultOr(s Sample, f func() string) string {
	if s.Read == nil {
		return "-"
	}
	return f()
}
